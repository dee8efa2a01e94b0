// Workflow prompts: the tool chains users ask agents for, written once so an agent starts from the
// right tools in the right order (and a human picks them from a menu). Each argument names where
// its completions come from: the platform (usernames, hashtags, places through the search routes)
// or the manifest (a parameter's enum).
import { ProtocolError, ProtocolErrorCode, type GetPromptResult, type Prompt } from '@modelcontextprotocol/server';

/** Where an argument's completions come from: a search route's answer, or a route parameter's enum. */
export type Suggests = { readonly search: string; readonly field: string } | { readonly enumOf: string; readonly param: string };

interface PromptArgument {
  readonly name: string;
  readonly description: string;
  readonly required: boolean;
  readonly suggests?: Suggests;
}

interface WorkflowPrompt {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  readonly arguments: readonly PromptArgument[];
  readonly text: (args: Readonly<Record<string, string>>) => string;
}

export const USERNAMES: Suggests = { search: 'GET /search/users', field: 'username' };
const HASHTAGS: Suggests = { search: 'GET /search/hashtags', field: 'name' };
const PLACES: Suggests = { search: 'GET /search/places', field: 'name' };

const PROMPTS: readonly WorkflowPrompt[] = [
  {
    name: 'answer_unread_messages',
    title: 'Answer my unread messages',
    description: 'Reads the unread direct threads and drafts an answer to each, sending only what you approve.',
    arguments: [{ name: 'tone', description: 'How the answers should sound (e.g. friendly, brief, formal).', required: false }],
    text: ({ tone }) =>
      [
        'List my direct threads that have unread messages (getDirectThreads).',
        'For each, read the thread (getDirectThread) and draft a reply' + (tone ? ` in a ${tone} tone` : '') + '.',
        'Show me every draft first; send one (postDirectThreadMessage) only after I approve it. Stop at the first error and tell me its exc_type and hint.',
      ].join('\n'),
  },
  {
    name: 'summarise_followers',
    title: 'Collect the followers of a user and summarise them',
    description: 'Collects the whole follower list through a job (not page by page) and summarises who they are.',
    arguments: [
      { name: 'username', description: 'Whose followers (a username).', required: true, suggests: USERNAMES },
      { name: 'format', description: 'The export format of the results.', required: false, suggests: { enumOf: 'GET /jobs/results', param: 'format' } },
    ],
    text: ({ username, format }) =>
      [
        `Start a job that collects every follower of @${username} (postJobs with route "GET /user/followers" and params {"username": "${username}"}).`,
        'Follow it with getJobsStatus until it is done, then fetch its results with getJobsResults' + (format ? ` as ${format}` : '') + ' (a link).',
        'Summarise the followers: how many, how many private or verified, common words in their names and biographies, and the ten most notable.',
      ].join('\n'),
  },
  {
    name: 'account_health',
    title: "Check this account's health",
    description: "Reads the session's state, profile, watch and jobs and says whether anything needs the owner.",
    arguments: [],
    text: () =>
      [
        'Read the resources of my session (resources/list names them): its state, account, watch and jobs.',
        'Tell me plainly: is the session active, challenged, throttled (until when) or logged out; does the profile look complete;',
        'is it watched; are jobs stuck or failed. End with what, if anything, I should do.',
      ].join('\n'),
  },
  {
    name: 'explore_hashtag',
    title: 'What is posted under a hashtag',
    description: 'Reads the top and recent posts of a hashtag and summarises the themes.',
    arguments: [{ name: 'hashtag', description: 'The hashtag, without #.', required: true, suggests: HASHTAGS }],
    text: ({ hashtag }) =>
      `Read hashtag #${hashtag} (getHashtag), then its top and recent posts (the hashtag medias tools), and ` +
      `summarise the themes, the most active accounts and the posting times.`,
  },
  {
    name: 'posts_at_place',
    title: 'What is posted at a place',
    description: 'Finds a place and summarises its recent and top posts.',
    arguments: [{ name: 'place', description: 'A place name (a venue, a city).', required: true, suggests: PLACES }],
    text: ({ place }) =>
      `Find the place "${place}" (getSearchPlaces or getSearchLocations), then read its recent and top posts (the ` +
      `location media tools) and summarise what people post there.`,
  },
];

const BY_NAME = new Map(PROMPTS.map((prompt) => [prompt.name, prompt]));

export function listPrompts(): Prompt[] {
  return PROMPTS.map(({ name, title, description, arguments: args }) => ({
    name,
    title,
    description,
    arguments: args.map(({ name: arg, description: about, required }) => ({ name: arg, description: about, required })),
  }));
}

export function getPrompt(name: string, args: Readonly<Record<string, string>>): GetPromptResult {
  const prompt = BY_NAME.get(name);
  if (!prompt) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `No prompt named "${name}" (prompts/list names them)`);
  const missing = prompt.arguments.filter((arg) => arg.required && !args[arg.name]?.trim()).map((arg) => arg.name);
  if (missing.length) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Prompt ${name} needs ${missing.join(', ')}`);
  return { description: prompt.description, messages: [{ role: 'user', content: { type: 'text', text: prompt.text(args) } }] };
}

/** Where a prompt argument's completions come from; undefined when it has none. */
export function promptSuggests(name: string, argument: string): Suggests | undefined {
  return BY_NAME.get(name)?.arguments.find((arg) => arg.name === argument)?.suggests;
}
