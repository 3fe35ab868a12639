// The database could not be opened or reached at start for a reason the operator acts on (a
// DATA_DIR held by another etax server, a PostgreSQL that did not answer in time), as opposed to
// a bug. The CLI prints the message as its one `etax: …` line and exits 2, without a stack.
export class DatabaseOpenError extends Error {}
