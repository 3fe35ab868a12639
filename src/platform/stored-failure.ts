// Why a piece of work failed, as its row stores it (`failure_code`, `failure_message`) and as
// the API answers it: null while nothing failed; a code stored without a message answers an
// empty one, so a client always finds both fields.

type FailureColumns = { failureCode: string | null; failureMessage: string | null };

export function failureOfRow(row: FailureColumns): { code: string; message: string } | null {
  return row.failureCode === null ? null
    : { code: row.failureCode, message: row.failureMessage ?? '' };
}
