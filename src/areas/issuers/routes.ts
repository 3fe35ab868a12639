import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { withHasMore } from '../../platform/paging.ts';
import { requestCaller, requestScope } from '../../platform/scope.ts';
import {
  bodyErrors,
  inputErrors,
  operationErrors,
  INPUT_CHECKED_AFTER_COUNTING,
} from '../../platform/error-responses.ts';
import {
  CERTIFICATE_BODY_BYTES_MAX,
  CertificateFacts,
  CertificateUploadBody,
  CreateIssuerBody,
  Issuer,
  IssuerIdParams,
  IssuerPage,
  LatestHistory,
  ListIssuersQuery,
  RegistrationAccepted,
  RegistrationSettings,
  RegistrationUrl,
  UpdateIssuerBody,
} from './schemas.ts';
import type { IssuersService } from './service.ts';

// Issuers and their joint certificates under /v1 (docs/issuers.md). Handlers only translate:
// the caller's scope in, the service's answer out.

const TAGS = ['Issuers'];

type Options = { issuers: IssuersService };

const registerIssuerResource: FastifyPluginAsyncTypebox<Options> = async (app, { issuers }) => {
  app.post('/issuers', {
    config: { operation: 'issuers.create' },
    schema: {
      operationId: 'createIssuer', tags: TAGS, summary: 'Register an issuer',
      description: 'Registers a business that issues tax invoices under this key. The same ' +
        'business and sub-place can be registered once per account and environment while ' +
        'active: a second registration is 409 ISSUER_ALREADY_REGISTERED naming the existing ' +
        'issuerId.',
      body: CreateIssuerBody,
      response: { 201: Issuer, ...bodyErrors(INPUT_CHECKED_AFTER_COUNTING,
        'INVALID_BUSINESS_REGISTRATION_NUMBER', 'ISSUER_ALREADY_REGISTERED') },
    },
  }, async (request, reply) => {
    const issuer = await issuers.createIssuer({ scope: requestScope(request),
      issuer: request.body });
    return reply.code(201).send(issuer);
  });

  app.get('/issuers', {
    config: { operation: 'issuers.list' },
    schema: {
      operationId: 'listIssuers', tags: TAGS, summary: 'List issuers',
      description: 'Issuers of this account and environment in registration order, including ' +
        'deactivated ones, paged with an opaque cursor.',
      querystring: ListIssuersQuery,
      response: { 200: IssuerPage, ...inputErrors(INPUT_CHECKED_AFTER_COUNTING) },
    },
  }, async (request) => {
    const { limit, cursor } = request.query;
    return withHasMore(await issuers.listIssuers({ scope: requestScope(request), limit, cursor }));
  });

  app.get('/issuers/:issuerId', {
    config: { operation: 'issuers.get' },
    schema: {
      operationId: 'getIssuer', tags: TAGS, summary: 'Get an issuer',
      params: IssuerIdParams,
      response: { 200: Issuer, ...inputErrors('NOT_FOUND') },
    },
  }, async (request) => issuers.getIssuer({ scope: requestScope(request), ...request.params }));

  app.patch('/issuers/:issuerId', {
    config: { operation: 'issuers.update' },
    schema: {
      operationId: 'updateIssuer', tags: TAGS, summary: 'Update an issuer',
      params: IssuerIdParams, body: UpdateIssuerBody,
      // A fiscal year for an individual's number is refused once the issuer is read.
      response: { 200: Issuer, ...bodyErrors(INPUT_CHECKED_AFTER_COUNTING, 'NOT_FOUND',
        'ISSUER_DEACTIVATED') },
    },
  }, async (request) => issuers.updateIssuer({ scope: requestScope(request), ...request.params,
    changes: request.body }));

  app.delete('/issuers/:issuerId', {
    config: { operation: 'issuers.deactivate' },
    schema: {
      operationId: 'deactivateIssuer', tags: TAGS, summary: 'Deactivate an issuer',
      description: 'The issuer stays readable with `active: false`; it can no longer register ' +
        'certificates, change or issue. Repeating the call answers the same.',
      params: IssuerIdParams,
      response: { 200: Issuer, ...bodyErrors('NOT_FOUND') },
    },
  }, async (request) => issuers.deactivateIssuer({ scope: requestScope(request),
    ...request.params }));
};

const registerCertificateRoutes: FastifyPluginAsyncTypebox<Options> = async (
  app,
  { issuers },
) => {
  app.post('/issuers/:issuerId/certificates', {
    config: { operation: 'issuers.certificates.register' },
    bodyLimit: CERTIFICATE_BODY_BYTES_MAX,
    schema: {
      operationId: 'registerIssuerCertificate', tags: TAGS,
      summary: 'Register a joint certificate (direct upload)',
      description: 'Accepts signCert.der and signPri.key (base64) and the password, and ' +
        'registers them asynchronously: the result is in latestHistory within 30 seconds. ' +
        'The files and password are kept only encrypted until the job has checked them.',
      params: IssuerIdParams, body: CertificateUploadBody,
      response: { 202: RegistrationAccepted, ...bodyErrors('NOT_FOUND', 'ISSUER_DEACTIVATED') },
    },
  }, async (request, reply) => {
    const { signCert, signPri, password } = request.body;
    const upload = { signCert: Buffer.from(signCert, 'base64'),
      signPri: Buffer.from(signPri, 'base64'), password };
    const accepted = await issuers.submitCertificate({ scope: requestScope(request),
      ...request.params, upload });
    return reply.code(202).send(accepted);
  });

  app.get('/issuers/:issuerId/certificates', {
    config: { operation: 'issuers.certificates.get' },
    schema: {
      operationId: 'getIssuerCertificate', tags: TAGS,
      summary: 'Get the registered certificate\'s public facts',
      params: IssuerIdParams,
      response: { 200: CertificateFacts, ...inputErrors('NOT_FOUND') },
    },
  }, async (request) => issuers.getCertificate({ scope: requestScope(request),
    ...request.params }));

  app.delete('/issuers/:issuerId/certificates', {
    config: { operation: 'issuers.certificates.deregister' },
    schema: {
      operationId: 'deregisterIssuerCertificate', tags: TAGS,
      summary: 'Deregister the certificate',
      description: 'Deletes the stored certificate and key and records DEREGISTERED.',
      params: IssuerIdParams,
      response: { 204: Type.Null({ description: 'Deregistered.' }), ...bodyErrors('NOT_FOUND') },
    },
  }, async (request, reply) => {
    await issuers.deregisterCertificate({ scope: requestScope(request), ...request.params });
    return reply.code(204).send(null);
  });
};

const registerRegistrationRoutes: FastifyPluginAsyncTypebox<Options> = async (
  app,
  { issuers },
) => {
  app.get('/issuers/:issuerId/certificates/url', {
    config: { operation: 'issuers.certificates.url' },
    schema: {
      operationId: 'getIssuerCertificateRegistrationUrl', tags: TAGS,
      summary: 'Get a one-time certificate registration page URL',
      description: 'A page served by etax where the business owner uploads the certificate ' +
        'files and types the password, and sees at once what the upload came to. Valid 5 ' +
        'minutes; a registration uses it up, a failed attempt can be tried again on it.',
      params: IssuerIdParams,
      response: { 200: RegistrationUrl, ...inputErrors('NOT_FOUND', 'ISSUER_DEACTIVATED') },
    },
  }, async (request) => {
    const { apiKeyId, ...scope } = requestCaller(request);
    return issuers.createRegistrationUrl({ scope, apiKeyId, ...request.params });
  });

  app.get('/issuers/:issuerId/certificates/latestHistory', {
    config: { operation: 'issuers.certificates.latestHistory' },
    schema: {
      operationId: 'getIssuerCertificateLatestHistory', tags: TAGS,
      summary: 'Retrieve issuer certificate registration status',
      description: 'The latest certificate registration record. The result of a direct upload ' +
        'shows within 30 seconds; an attempt on the hosted page shows before the page answers.',
      params: IssuerIdParams,
      response: { 200: LatestHistory, ...inputErrors('NOT_FOUND',
        'CERTIFICATE_HISTORY_NOT_FOUND') },
    },
  }, async (request) => issuers.latestHistory({ scope: requestScope(request), ...request.params }));
};

const registerSettingsRoutes: FastifyPluginAsyncTypebox<Options> = async (app, { issuers }) => {
  app.get('/certificateRegistrationSettings', {
    config: { operation: 'issuers.settings.get' },
    schema: {
      operationId: 'getCertificateRegistrationSettings', tags: TAGS,
      summary: 'Get this key\'s certificate registration settings',
      response: { 200: RegistrationSettings, ...operationErrors() },
    },
  }, async (request) => issuers.getSettings(requestCaller(request).apiKeyId));

  app.put('/certificateRegistrationSettings', {
    config: { operation: 'issuers.settings.save' },
    schema: {
      operationId: 'saveCertificateRegistrationSettings', tags: TAGS,
      summary: 'Set this key\'s certificate registration settings',
      description: 'Links made afterwards redirect to the new URL.',
      body: RegistrationSettings,
      response: { 200: RegistrationSettings, ...bodyErrors() },
    },
  }, async (request) => issuers.saveSettings(requestCaller(request).apiKeyId,
    request.body.certificateRedirectUrl));
};

export const registerIssuerRoutes: FastifyPluginAsyncTypebox<Options> = async (app, options) => {
  await app.register(registerIssuerResource, options);
  await app.register(registerCertificateRoutes, options);
  await app.register(registerRegistrationRoutes, options);
  await app.register(registerSettingsRoutes, options);
};
