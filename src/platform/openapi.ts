import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { nameSchemas } from './openapi-components.ts';
import { addResponseHeaders } from './openapi-headers.ts';
import { describeRequests, withBodyRule } from './openapi-requests.ts';
import { referenceGuides, referenceGuidesMarkdown, type ReferenceSection }
  from './reference-guides.ts';

// OpenAPI 3.1.0 generated from the route schemas: served at /openapi.json, with a reference page
// at /docs, and committed as openapi/openapi.json (`npm run openapi`).

// The reference page's title: the browser tab and bookmarks say what it is, not "Swagger UI".
export const REFERENCE_PAGE_TITLE = 'etax API reference';

const API_VERSION = '1.0.0';

const DESCRIPTION = [
  'etax is an open, self-hostable e-tax-invoice API platform for Korea.',
  '',
  'Authenticate every /v1 request with HTTP Basic: the API key is the username and the password',
  'is empty, so send `Authorization: Basic base64(API_KEY + ":")`. Keys starting with `test_` use',
  'the sandbox; keys starting with `live_` use production. A failed authentication is 401 with no',
  'body. Every other error has the body `{code, message, traceId}`, and every response carries a',
  '`Trace-Id` header equal to the body\'s `traceId`.',
].join('\n');

type OpenApiOptions = {
  serverUrl: string;
  // The sections of the reference, from the area modules: the declared tags and the guides.
  sections: readonly ReferenceSection[];
  // Where the repository's files are read (GUIDES_BASE_URL); unset, guides are named by path.
  guidesBaseUrl?: string;
};

async function openApiPlugin(app: FastifyInstance,
  { serverUrl, sections, guidesBaseUrl }: OpenApiOptions) {
  const guides = referenceGuidesMarkdown(referenceGuides(sections), guidesBaseUrl);
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'etax API',
        version: API_VERSION,
        description: `${DESCRIPTION}\n\n${guides}`,
        license: { name: 'MIT', identifier: 'MIT' },
      },
      servers: [{ url: serverUrl }],
      components: {
        securitySchemes: {
          basicAuth: {
            type: 'http',
            scheme: 'basic',
            description: 'API key as the username, empty password.',
          },
        },
      },
      security: [{ basicAuth: [] }],
      tags: sections.map(({ tag, description }) => ({ name: tag, description })),
    },
    transform: ({ schema, url, route }) => ({ schema: withBodyRule(schema ?? {}, route), url }),
    // What the route schemas cannot say: the headers and the requests as the server treats
    // them; then the named schemas. On a copy, since the document shares its schemas with
    // validation.
    transformObject: (documents) => {
      const document = structuredClone(
        'openapiObject' in documents ? documents.openapiObject : documents.swaggerObject,
      );
      return nameSchemas(describeRequests(addResponseHeaders(document)));
    },
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, index) => String(json.$id ?? `def-${index}`),
    },
  });
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    staticCSP: true,
    theme: { title: REFERENCE_PAGE_TITLE },
  });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}

export const openApi = fp(openApiPlugin, { name: 'etax-openapi' });
