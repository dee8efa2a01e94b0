// Every area's method table; the registry merges them and refuses duplicates.
import type { MethodTable } from '../registry.js';
import { accountMethods } from './account.js';
import { authMethods } from './auth.js';
import { commentMethods } from './comments.js';
import { directSendMethods } from './direct-send.js';
import { directMethods } from './direct.js';
import { downloadMethods } from './download.js';
import { feedMethods } from './feeds.js';
import { liveMethods } from './live.js';
import { mediaMethods } from './media.js';
import { musicMethods } from './music.js';
import { newerMethods } from './newer.js';
import { iteratorMethods } from './iterators.js';
import { newsMethods } from './news.js';
import { placeMethods } from './places.js';
import { searchMethods } from './search.js';
import { shareMethods } from './share.js';
import { mediaExtraMethods } from './media-extras.js';
import { storyMethods } from './stories.js';
import { timelineMethods } from './timeline.js';
import { uploadMethods } from './upload.js';
import { userMethods } from './users.js';

export const ALL_TABLES: readonly MethodTable[] = [
  authMethods,
  accountMethods,
  userMethods,
  feedMethods,
  timelineMethods,
  mediaMethods,
  commentMethods,
  liveMethods,
  storyMethods,
  placeMethods,
  searchMethods,
  shareMethods,
  mediaExtraMethods,
  musicMethods,
  newsMethods,
  directMethods,
  directSendMethods,
  uploadMethods,
  downloadMethods,
  newerMethods,
  iteratorMethods,
];
