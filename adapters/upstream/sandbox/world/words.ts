// Word lists the generator draws names, captions and places from.
export const FIRST = ['ada', 'ben', 'cleo', 'dan', 'eva', 'finn', 'gia', 'hugo', 'ines', 'jon', 'kai', 'lena', 'milo', 'nora', 'omar', 'pia', 'quinn', 'rosa', 'sam', 'tara', 'uma', 'vic', 'wren', 'xena', 'yuri', 'zoe', 'lucas', 'maya', 'noah', 'iris', 'leo', 'ella', 'theo', 'ruby', 'felix', 'alma'];
export const LAST = ['stone', 'rivers', 'field', 'brook', 'hale', 'moss', 'lake', 'frost', 'wood', 'vale', 'reed', 'north', 'gray', 'park', 'ash', 'bloom', 'cole', 'dune', 'ember', 'fox'];
export const SUFFIX = ['', '_', '.', '_official', '.photo', '_travels', '.eats', '_studio', '.daily', '_art'];
export const TOPICS = ['travel', 'food', 'coffee', 'sunset', 'hiking', 'city', 'design', 'music', 'dogs', 'cats', 'books', 'film', 'surf', 'garden', 'yoga', 'street', 'architecture', 'nature', 'bike', 'running', 'art', 'tea', 'bakery', 'vintage', 'beach', 'mountains', 'snow', 'night', 'portrait', 'minimal', 'sandbox', 'weekend', 'friends', 'family', 'summer', 'autumn', 'winter', 'spring', 'photography', 'reels'];
export const PHRASES = ['Golden hour again', 'Best morning in a while', 'Trying something new', 'Weekend mood', 'Found this little place', 'Back at it', 'Not a bad view', 'Small joys', 'Long walk, good talk', 'Could not resist', 'Throwback', 'New work in progress', 'Slow sunday', 'This light though', 'Road trip day three'];
export const COMMENTS = ['Love this!', 'So good', 'Wow 😍', 'Where is this?', 'Amazing shot', 'Need to go there', 'Haha yes', '🔥🔥🔥', 'Beautiful colours', 'Take me with you', 'Great work', 'Miss this place', 'Agreed!', 'Thanks!', 'Stunning'];
export const LIVE_COMMENTS = ['hi!! 👋', 'hello from Lisbon', 'just joined', 'love this', 'what are you working on?', '🔥🔥', 'can you show that again?', 'so cool', 'greetings from Berlin', '❤️', 'how long have you been doing this?', 'great stream'];
export const MESSAGES = ['hey!', 'how are you?', 'did you see this?', 'haha', 'see you tomorrow', 'sounds good', 'on my way', 'thanks a lot', 'that was fun', 'let me check', 'sure', 'what time?', 'love it', 'call me later', 'ok 👍'];
export const CITIES = [
  ['Lisbon', 'PT', 38.7223, -9.1393], ['Berlin', 'DE', 52.52, 13.405], ['Tokyo', 'JP', 35.6762, 139.6503], ['New York', 'US', 40.7128, -74.006],
  ['Mexico City', 'MX', 19.4326, -99.1332], ['Cape Town', 'ZA', -33.9249, 18.4241], ['Melbourne', 'AU', -37.8136, 144.9631], ['Paris', 'FR', 48.8566, 2.3522],
  ['Seoul', 'KR', 37.5665, 126.978], ['Buenos Aires', 'AR', -34.6037, -58.3816],
] as const;
export const PLACES = ['Café', 'Park', 'Museum', 'Market', 'Bridge', 'Harbour', 'Gallery', 'Bakery', 'Beach', 'Station', 'Garden', 'Rooftop'];
export const PLACE_NAMES = ['Central', 'Old Town', 'Riverside', 'Blue', 'Corner', 'Sunrise', 'Hilltop', 'Little', 'Grand', 'North'];
export const ARTISTS = ['The Sandbox Band', 'Nova Lights', 'Echo Valley', 'Mira Sol', 'Paper Kites Club', 'Lo-Fi Harbor', 'Static Bloom', 'June Avenue'];
export const SONGS = ['Morning Run', 'Neon Summer', 'Quiet Streets', 'Paper Planes', 'Slow Motion', 'Golden', 'Afterglow', 'Tidal', 'Night Drive', 'Sunday Loop'];
export const CATEGORIES = ['Photographer', 'Artist', 'Blogger', 'Musician/band', 'Restaurant', 'Travel company', 'Coach', 'Designer'];
