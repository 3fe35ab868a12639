// A webhook receiver for trying etax on one machine: it checks the Etax-Signature of every
// delivery with @etax/sdk and prints the event. docs/quickstart.md starts it as
//
//   ETAX_WEBHOOK_SECRET=whsec_… npx tsx examples/webhook-receiver.ts
//
// It listens on 127.0.0.1:4000 (PORT changes the port) and answers 204 to a verified
// delivery, 400 to any other request, so etax retries what it could not verify.
import { createServer } from 'node:http';
import { verifyWebhookSignature } from '@etax/sdk';

const secret = process.env.ETAX_WEBHOOK_SECRET;
if (!secret) {
  console.error('Set ETAX_WEBHOOK_SECRET to the secret POST /v1/webhookEndpoints answered.');
  process.exit(2);
}
const port = Number(process.env.PORT ?? 4000);

createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    // The signature covers the raw bytes: check them before parsing.
    const payload = Buffer.concat(chunks);
    const verified = verifyWebhookSignature({ payload, secrets: [secret],
      header: request.headers['etax-signature'] as string | undefined });
    response.statusCode = verified ? 204 : 400;
    response.end();
    if (!verified) {
      console.log(`refused ${request.method} ${request.url}: signature not verified`);
      return;
    }
    const event = JSON.parse(payload.toString('utf8')) as { id: string; type: string;
      data: Record<string, unknown> };
    console.log(`verified ${event.type} ${event.id} ${JSON.stringify(event.data)}`);
  });
}).listen(port, '127.0.0.1', () => {
  console.log(`listening on http://127.0.0.1:${port}/etax/webhooks`);
});
