// One account's keys never reach another account's data. For every operation of
// openapi/openapi.json whose request names a resource (in its path or a header), the owner
// account makes the resources its example request names (test/api/operation-examples.ts), and
// a stranger account's key of the same environment, sending the same request with the owner's
// ids, gets 404 NOT_FOUND (not 403) in the error shape; afterwards the owner's own request still
// gets its example's answer. Every list the stranger reads shows none of the owner's ids, and
// balances are read by each key as its own alone. The resource types are those the examples
// make, so a new operation or resource kind is covered by its example entry; a path parameter
// that no resource kind fills must say why. (The other environment of the same account is the
// contract suite's, test/api/operation-contract.test.ts.)
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Environment } from '../../src/platform/accounts/keys.ts';
import { basicAuth, createTestApp, type TestApp } from '../helpers/app.ts';
import { readOperations, type Operation } from '../helpers/openapi-operations.ts';
import {
  exampleAccount,
  exampleFor,
  exampleParts,
  EXAMPLES,
  EXAMPLES_APP_ENV,
  operationName,
  statusIn,
  toInjectOptions,
  type ResourceKind,
  type Resources,
} from './operation-examples.ts';

const ENVIRONMENTS: Environment[] = ['test', 'live'];

const OPERATIONS_OF_DOCUMENT = readOperations()
  .filter((operation) => operation.path.startsWith('/v1/') &&
    EXAMPLES[operationName(operation)] !== undefined);

// Path parameters that name no resource an example makes, and why each is still isolated.
const UNMADE_PARAMETERS: Record<string, string> = {
  businessRegistrationNumber: 'a public business number, no resource of an account',
  bulkId: 'bulks: test/api/bulks/, "hides a bulk from other accounts"',
  draftId: 'drafts: test/api/drafts/drafts.test.ts',
  attachmentId: 'attachments are reached through their invoice, whose issuanceKey is isolated',
  connectionId: 'connections: test/api/connections/connections.test.ts',
  bankAccountId: 'bank accounts: test/api/bank-transactions/bank-transactions.test.ts',
  syncId: 'syncs: test/api/bank-transactions/bank-transactions.test.ts',
  collectionId: 'collections need a connected tax portal, which no example makes: not checked ' +
    'across accounts here',
};

let app: TestApp;

beforeAll(async () => {
  app = await createTestApp({
    jobs: true,
    env: EXAMPLES_APP_ENV,
  });
});
afterAll(async () => {
  await app?.close();
});

const accountWith = (kinds: ResourceKind[]) => exampleAccount(app, kinds);

// The parameters of the request that name a resource an example makes.
function namingParameters(operation: Operation, made: ReadonlySet<string>): string[] {
  return operation.parameters.filter((parameter) => parameter.in !== 'query' &&
    made.has(parameter.name)).map((parameter) => parameter.name);
}

async function send(operation: Operation, resources: Resources, environment: Environment,
  key: string) {
  const parts = exampleParts(operation, resources, environment);
  return app.server.inject(toInjectOptions(parts, basicAuth(key)));
}

// Every kind of resource the examples make, and the parameters each fills.
const ALL_KINDS = [...new Set(Object.values(EXAMPLES).flatMap((example) => example.uses ?? []))];
let madeParameters: Set<string>;

beforeAll(async () => {
  const census = await accountWith(ALL_KINDS);
  madeParameters = new Set(Object.keys(census.resources.test));
});

describe('the resource types', () => {
  it('are made by the examples, each filling a parameter of the operations', () => {
    expect(ALL_KINDS.length).toBeGreaterThanOrEqual(8);
    for (const name of ['endpointId', 'issuerId', 'supplier-key', 'issuanceKey',
      'counterpartyId', 'importId', 'eventId']) expect(madeParameters).toContain(name);
  });

  it('cover every path parameter, or it says why not', () => {
    const uncovered = OPERATIONS_OF_DOCUMENT.flatMap((operation) => operation.parameters)
      .filter((parameter) => parameter.in === 'path' && !madeParameters.has(parameter.name) &&
        UNMADE_PARAMETERS[parameter.name] === undefined)
      .map((parameter) => parameter.name);
    expect([...new Set(uncovered)]).toEqual([]);
  });
});

describe('isolating accounts', () => {
  for (const operation of OPERATIONS_OF_DOCUMENT) {
    const example = exampleFor(operation);
    const kinds = example.uses ?? [];
    if (kinds.length === 0) continue;

    it(`${operationName(operation)}: another account's key gets 404 NOT_FOUND for the owner's `
      + 'resources, or a list without them, and the owner\'s request is answered as before',
    async () => {
      const owner = await accountWith(kinds);
      const stranger = await accountWith(kinds);
      const naming = namingParameters(operation, madeParameters);
      for (const environment of ENVIRONMENTS) {
        const ownerResources = owner.resources[environment];
        if (naming.length > 0) {
          // The stranger's own resources, but the owner's where the request names one.
          const mixed = { ...stranger.resources[environment], ...Object.fromEntries(
            naming.map((name) => [name, ownerResources[name]!])) };
          const response = await send(operation, mixed, environment, stranger.keys[environment]);
          const what = `${environment} stranger: ${response.body}`;
          expect(response.statusCode, what).toBe(404);
          expect(response.json(), what).toEqual({ code: 'NOT_FOUND', message: expect.any(String),
            traceId: response.headers['trace-id'] });
        } else if (operation.method === 'GET' && statusIn(example, environment) === 200) {
          const response = await send(operation, stranger.resources[environment], environment,
            stranger.keys[environment]);
          expect(response.statusCode, response.body).toBe(200);
          for (const id of Object.values(ownerResources)) expect(response.body).not.toContain(id);
        }
      }
      // The refusals changed nothing: the owner's own request still gets its answer.
      for (const environment of ENVIRONMENTS) {
        const response = await send(operation, owner.resources[environment], environment,
          owner.keys[environment]);
        expect(response.statusCode, `${environment} owner: ${response.body}`)
          .toBe(statusIn(example, environment));
      }
    });
  }

  it('shows each key its own balance alone', async () => {
    const principals = [await app.createAccount(), await app.createAccount()]
      .flatMap((account) => ENVIRONMENTS.map((environment) => ({ accountId: account.accountId,
        environment, key: account.keys[environment] })));
    // Distinct amounts, so a key reading another's balance cannot go unnoticed.
    for (const [index, principal] of principals.entries()) {
      await app.platform.points.grant({ accountId: principal.accountId,
        environment: principal.environment, points: 1_000 + index });
    }
    const seen = [];
    for (const principal of principals) {
      const response = await app.server.inject({ method: 'GET', url: '/v1/points',
        headers: { authorization: basicAuth(principal.key) } });
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json()).toEqual(await app.platform.points.getBalance({
        accountId: principal.accountId, environment: principal.environment }));
      seen.push(response.body);
    }
    expect(new Set(seen).size).toBe(principals.length);
  });
});
