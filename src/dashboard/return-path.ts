// Where a form may send the browser back to: a path of the dashboard, never another site.
const RETURN_PATH = /^\/dashboard(\/[A-Za-z0-9/_-]*)?$/;

export function safeReturnPath(value: string | null | undefined): string {
  return value !== null && value !== undefined && RETURN_PATH.test(value) ? value : '/dashboard';
}
