import { createHash, randomBytes } from 'node:crypto';
import { canonicalJson } from '../domain/canonical-json.ts';
import { SealedBoxError, type SealingKey } from '../domain/sealed-box.ts';

// Confirmation tokens (docs/mcp.md § Safety). A preview answers what an action would do and a
// token; the action runs only with that token. A token is sealed (AES-256-GCM) and carries its
// own id, the hash of the exact request it was made for (the tool, its arguments and the API
// key) and when it expires. Sealing makes it verifiable wherever the key is known, without
// storing it; that it is used once is a claim on its id, made when the action runs: in the
// database for /mcp (every server process shares it), in the process for `etax mcp` over stdio
// (one process serves one desktop agent).

// Long enough for a person to read a preview and say yes, short enough that a preview does not
// stand for a state of things long gone.
const CONFIRMATION_TTL_MS = 5 * 60_000;

const CONTEXT = 'mcp confirmation token';

export type Refusal = 'CONFIRMATION_REQUIRED' | 'CONFIRMATION_INVALID' |
  'CONFIRMATION_EXPIRED' | 'CONFIRMATION_MISMATCH' | 'CONFIRMATION_REUSED' |
  'LIVE_KEY_REFUSED';

// A tool call refused by the MCP server itself, before anything reached the API.
export class ToolRefusal extends Error {
  readonly refusal: Refusal;
  constructor(refusal: Refusal, message: string) {
    super(message);
    this.refusal = refusal;
  }
}

// Claims a token's id: true the first time, false ever after.
export type ClaimOnce = (tokenId: string, requestHash: string, expiresAt: Date) =>
  Promise<boolean>;

export function keyHashOf(apiKey: string): string {
  return createHash('sha256').update(apiKey).digest('hex');
}

function requestHashOf(input: { tool: string; arguments: unknown; keyHash: string }) {
  return createHash('sha256').update(canonicalJson({ tool: input.tool,
    arguments: input.arguments ?? null, key: input.keyHash })).digest('hex');
}

type TokenBody = { id: string; hash: string; expiresAt: number };

// Used once per process: enough for stdio, where one process serves one agent. Expired ids are
// dropped as new ones come, so the set holds at most the tokens of the last few minutes.
export function claimsInProcess(now: () => Date): ClaimOnce {
  const used = new Map<string, number>();
  return async (tokenId, _hash, expiresAt) => {
    const at = now().getTime();
    for (const [id, expiry] of used) if (expiry < at) used.delete(id);
    if (used.has(tokenId)) return false;
    used.set(tokenId, expiresAt.getTime());
    return true;
  };
}

export function createConfirmations(deps: { sealing: SealingKey; claimOnce: ClaimOnce;
  now: () => Date }) {
  const key = deps.sealing.derived(CONTEXT);

  function issue(tool: string, args: unknown, keyHash: string) {
    const id = randomBytes(16).toString('base64url');
    const expiresAt = deps.now().getTime() + CONFIRMATION_TTL_MS;
    const body: TokenBody = { id, hash: requestHashOf({ tool, arguments: args, keyHash }),
      expiresAt };
    return { id, token: key.seal(Buffer.from(JSON.stringify(body)), CONTEXT),
      expiresAt: new Date(expiresAt) };
  }

  function open(token: string): TokenBody {
    try {
      const body = JSON.parse(key.open(token, CONTEXT).toString('utf8')) as TokenBody;
      if (typeof body.id === 'string' && typeof body.hash === 'string' &&
        Number.isSafeInteger(body.expiresAt)) return body;
    } catch (error) {
      if (!(error instanceof SealedBoxError) && !(error instanceof SyntaxError)) throw error;
    }
    throw new ToolRefusal('CONFIRMATION_INVALID', 'confirmationToken is not a token this ' +
      'server gave. Call the preview tool again and confirm with the token it answers.');
  }

  // The token's id once it is redeemed for exactly this request; a refusal otherwise. The
  // claim is made last, so that a mismatched or expired call does not spend the token.
  async function redeem(input: { tool: string; previewTool: string; arguments: unknown;
    keyHash: string; token: string | undefined }): Promise<string> {
    if (input.token === undefined || input.token.length === 0) {
      throw new ToolRefusal('CONFIRMATION_REQUIRED', `${input.tool} needs a confirmationToken. ` +
        `Call ${input.previewTool} with the same arguments, show its answer to the person you ` +
        'act for, and call this tool with the token it answers once they agree.');
    }
    const body = open(input.token);
    if (body.expiresAt < deps.now().getTime()) {
      throw new ToolRefusal('CONFIRMATION_EXPIRED', 'The confirmationToken has expired ' +
        `(tokens last ${CONFIRMATION_TTL_MS / 60_000} minutes). Call ${input.previewTool} ` +
        'again.');
    }
    if (body.hash !== requestHashOf({ tool: input.tool, arguments: input.arguments,
      keyHash: input.keyHash })) {
      throw new ToolRefusal('CONFIRMATION_MISMATCH', 'The confirmationToken was given for ' +
        'another request (other arguments or another API key). Nothing was done. Call ' +
        `${input.previewTool} with exactly these arguments to confirm them.`);
    }
    if (!await deps.claimOnce(body.id, body.hash, new Date(body.expiresAt))) {
      throw new ToolRefusal('CONFIRMATION_REUSED', 'The confirmationToken was already used; ' +
        'the action it confirmed ran at most once, with Service-Client-Reference-Id ' +
        `${referenceIdOf(body.id)}. Look its outcome up instead of repeating it, or call ` +
        `${input.previewTool} again for a new action.`);
    }
    return body.id;
  }

  return { issue, redeem };
}

export type Confirmations = ReturnType<typeof createConfirmations>;

// The Service-Client-Reference-Id of the action a token confirms: a retried call carries the
// same one, so the API acts once whatever happens to the answer.
export function referenceIdOf(tokenId: string): string {
  return `mcp-${tokenId}`;
}
