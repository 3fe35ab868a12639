import { Type, type Static } from '@fastify/type-provider-typebox';

// The request and response schemas of these routes: one TypeBox schema drives validation,
// serialization, the types and the OpenAPI document.

export const PointBalance = Type.Object(
  {
    balance: Type.Integer({ description: 'Posted points of the calling key\'s environment.' }),
    reserved: Type.Integer({ description: 'Points held by requests in progress.' }),
    available: Type.Integer({ description: 'balance − reserved: what the next call can use.' }),
  },
  {
    $id: 'PointBalance',
    title: 'PointBalance',
    description: 'The point balance of the calling key\'s environment.',
    additionalProperties: false,
    examples: [{ balance: 1_000_000, reserved: 90, available: 999_910 }],
  },
);
export type PointBalance = Static<typeof PointBalance>;
