// Errors the sandbox raises, named and based as aiograpi 1.0.9 names them, with its messages.
import { UpstreamError, type JsonValue } from '../../../engine/types.js';

// Direct bases of the classes the sandbox raises (the engine's error table has the full tree).
const BASES: Readonly<Record<string, readonly string[]>> = {
  TypeError: ['Exception'],
  AttributeError: ['Exception'],
  ValueError: ['Exception'],
  IndexError: ['Exception'],
  LoginRequired: ['PrivateError'],
  BadPassword: ['PrivateError'],
  BadCredentials: ['PrivateError'],
  TwoFactorRequired: ['PrivateError'],
  ChallengeRequired: ['ChallengeError'],
  PleaseWaitFewMinutes: ['PrivateError'],
  FeedbackRequired: ['PrivateError'],
  ClientConnectionError: ['ClientError'],
  ClientBadRequestError: ['ClientError'],
  ClientNotFoundError: ['ClientError'],
  ClientForbiddenError: ['ClientError'],
  WrongCursorError: ['ClientError'],
  UserNotFound: ['NotFoundError', 'UserError'],
  MediaNotFound: ['NotFoundError', 'MediaError'],
  StoryNotFound: ['NotFoundError', 'MediaError'],
  HashtagNotFound: ['NotFoundError', 'HashtagError'],
  LocationNotFound: ['NotFoundError', 'LocationError'],
  CollectionNotFound: ['NotFoundError', 'CollectionError'],
  DirectThreadNotFound: ['NotFoundError', 'DirectError'],
  DirectMessageNotFound: ['NotFoundError', 'DirectError'],
  HighlightNotFound: ['NotFoundError', 'PrivateError'],
  NoteNotFound: ['NotFoundError'],
  TrackNotFound: ['NotFoundError'],
  CommentNotFound: ['PrivateError'],
  CommentsDisabled: ['PrivateError'],
  InvalidMediaId: ['PrivateError'],
  InvalidTargetUser: ['PrivateError'],
  ShareDecodeError: ['PrivateError'],
  PrivateAccount: ['PrivateError'],
  UnsupportedSettingValue: ['UnsupportedError'],
  PhotoNotUpload: ['PrivateError'],
  VideoNotUpload: ['PrivateError'],
  IGTVNotUpload: ['PrivateError'],
  ClipNotUpload: ['PrivateError'],
  AlbumConfigureError: ['PrivateError'],
  VideoNotDownload: ['PrivateError'],
  AlbumNotDownload: ['PrivateError'],
  EmailInvalidError: ['ClientError'],
  UnknownError: ['PrivateError'],
};

export function upstreamError(excType: string, message: string, lastJson?: JsonValue, retryAfter?: number): UpstreamError {
  return new UpstreamError(excType, message, { bases: BASES[excType] ?? ['ClientError'], lastJson, retryAfter });
}

export function fail(excType: string, message: string, lastJson?: JsonValue): never {
  throw upstreamError(excType, message, lastJson);
}

export const notFound = {
  user: (id: string): never => fail('UserNotFound', `User not found: ${id}`, { message: 'User not found', status: 'fail' }),
  media: (id: string): never => fail('MediaNotFound', `Media not found or unavailable: ${id}`, { message: 'Media not found or unavailable', status: 'fail' }),
  story: (id: string): never => fail('StoryNotFound', `Story not found: ${id}`, { message: 'Media not found or unavailable', status: 'fail' }),
  comment: (id: string): never => fail('CommentNotFound', `Comment not found: ${id}`),
  hashtag: (name: string): never => fail('HashtagNotFound', `Hashtag not found: ${name}`, { message: 'Page not found', status: 'fail' }),
  location: (pk: string): never => fail('LocationNotFound', `Location not found: ${pk}`, { message: 'Page not found', status: 'fail' }),
  collection: (id: string): never => fail('CollectionNotFound', `Collection not found: ${id}`),
  thread: (id: string): never => fail('DirectThreadNotFound', `Thread not found: ${id}`, { message: 'Thread does not exist', status: 'fail' }),
  message: (id: string): never => fail('DirectMessageNotFound', `Message not found: ${id}`),
  highlight: (pk: string): never => fail('HighlightNotFound', `Highlight not found: ${pk}`),
  note: (id: string): never => fail('NoteNotFound', `Note not found: ${id}`),
  track: (id: string): never => fail('TrackNotFound', `Track not found: ${id}`),
};

/** What Python raises for a bad call signature or value. */
export const typeError = (message: string): never => fail('TypeError', message);
export const valueError = (message: string): never => fail('ValueError', message);
