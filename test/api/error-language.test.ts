// Error messages follow the request's Accept-Language: Korean when it prefers Korean, English
// otherwise, with the code, status and trace id unchanged. A message of the error's own (which
// field, which route) follows the Korean text as written.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERRORS } from '../../src/platform/errors.ts';
import { basicAuth, createTestApp, type TestApp } from '../helpers/app.ts';
import { expectError } from '../helpers/errors.ts';

let app: TestApp;
let key: string;
beforeAll(async () => {
  app = await createTestApp();
  key = (await app.createAccount()).keys.test;
});
afterAll(async () => {
  await app?.close();
});

function getPoints(language: string | undefined, authorization = basicAuth(key)) {
  return app.server.inject({ method: 'GET', url: '/v1/points/unknown',
    headers: { authorization,
      ...(language === undefined ? {} : { 'accept-language': language }) } });
}

function postIssuer(language: string) {
  return app.server.inject({ method: 'POST', url: '/v1/issuers',
    headers: { authorization: basicAuth(key), 'content-type': 'application/json',
      'accept-language': language },
    payload: '{"identificationNumber": 1}' });
}

describe('the language of error messages', () => {
  it.each([
    ['no Accept-Language', undefined, 'en'],
    ['English first', 'en-US,en;q=0.9,ko;q=0.8', 'en'],
    ['a language etax does not write', 'fr-FR', 'en'],
    ['Korean', 'ko', 'ko'],
    ['Korean of Korea first', 'ko-KR,ko;q=0.9,en-US;q=0.8', 'ko'],
    ['Korean with the higher q', 'en;q=0.3, ko;q=0.7', 'ko'],
  ])('answers %s (%s) in %s', async (_, language, expected) => {
    const response = await getPoints(language);
    const body = expectError(response, 404, 'NOT_FOUND');
    expect(response.headers['content-language']).toBe(expected);
    const codeMessage = expected === 'ko' ? ERRORS.NOT_FOUND.messageKo : 'No such route.';
    expect(body.message.startsWith(codeMessage)).toBe(true);
  });

  it('puts the English detail after the Korean message of the code', async () => {
    const korean = expectError(await postIssuer('ko'), 400, 'INVALID_REQUEST');
    const english = expectError(await postIssuer('en'), 400, 'INVALID_REQUEST');
    expect(korean.message).toBe(`${ERRORS.INVALID_REQUEST.messageKo} (${english.message})`);
    expect(english.message).toMatch(/^body\.\w+ /);
  });

  it('answers a code without a detail with its Korean message alone', async () => {
    const response = await app.server.inject({ method: 'POST', url: '/v1/issuers',
      headers: { authorization: basicAuth(key), 'content-type': 'text/plain',
        'accept-language': 'ko' }, payload: 'x' });
    const body = expectError(response, 415, 'UNSUPPORTED_MEDIA_TYPE');
    expect(body.message).toBe(ERRORS.UNSUPPORTED_MEDIA_TYPE.messageKo);
  });
});
