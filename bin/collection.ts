// Writes an importable collection of every operation from openapi/openapi.json: a Postman
// collection (v2.1, which Bruno and Insomnia import too) and an environment with the two values
// to fill in, `baseUrl` and `apiKey`. Run with `npm run collection [-- <folder>]`; the default
// folder is ./collection. The converter is Postman's own; what it cannot know is set here: every
// request authenticates with HTTP Basic, the API key as the username and an empty password.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import Converter from 'openapi-to-postmanv2';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const DOCUMENT = join(ROOT, 'openapi/openapi.json');
const DEFAULT_BASE_URL = 'http://localhost:8080';

type Collection = {
  info: Record<string, unknown>;
  auth?: unknown;
  variable?: { key: string; value: string; type?: string; description?: unknown }[];
  item: unknown[];
};

// What a request of the collection sends as credentials.
const BASIC_WITH_API_KEY = {
  type: 'basic',
  basic: [
    { key: 'username', value: '{{apiKey}}', type: 'string' },
    { key: 'password', value: '', type: 'string' },
  ],
};

function convert(document: string): Promise<Collection> {
  return new Promise((resolvePromise, reject) => {
    Converter.convert({ type: 'string', data: document }, {
      folderStrategy: 'Tags',
      requestParametersResolution: 'Example',
      exampleParametersResolution: 'Example',
    }, (error, result) => {
      if (error) return reject(new Error(error.message));
      const output = result?.result ? result.output?.[0]?.data : undefined;
      if (output === undefined) {
        return reject(new Error(`the document could not be converted: ${result?.reason}`));
      }
      return resolvePromise(output as unknown as Collection);
    });
  });
}

export async function writeCollection(folder: string): Promise<string[]> {
  const collection = await convert(readFileSync(DOCUMENT, 'utf8'));
  collection.auth = BASIC_WITH_API_KEY;
  // The collection's variables: the two of the environment, then those of path segments such as
  // `{{endpointId}}:rotateSecret`, which the converter makes collection variables. They start
  // empty: the converter fills them with random sample values.
  const segmentVariables = (collection.variable ?? [])
    .filter((variable) => variable.key !== 'baseUrl')
    .map(({ key, description }) => ({ key, value: '', type: 'string', description }));
  collection.variable = [
    { key: 'baseUrl', value: DEFAULT_BASE_URL, type: 'string' },
    { key: 'apiKey', value: '', type: 'string' },
    ...segmentVariables,
  ];
  const environment = {
    name: 'etax (local sandbox)',
    values: [
      { key: 'baseUrl', value: DEFAULT_BASE_URL, type: 'default', enabled: true },
      { key: 'apiKey', value: '', type: 'secret', enabled: true },
    ],
    _postman_variable_scope: 'environment',
  };
  mkdirSync(folder, { recursive: true });
  const files = [join(folder, 'etax.postman_collection.json'),
    join(folder, 'etax.postman_environment.json')];
  writeFileSync(files[0]!, `${JSON.stringify(collection, null, 2)}\n`);
  writeFileSync(files[1]!, `${JSON.stringify(environment, null, 2)}\n`);
  return files;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const files = await writeCollection(resolve(process.argv[2] ?? 'collection'));
  for (const file of files) console.log(`wrote ${file}`);
}
