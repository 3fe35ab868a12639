import { createHash } from 'node:crypto';

// The one stylesheet of the hosted pages, inlined into each page: the pages are single
// documents that load nothing else. The Content-Security-Policy allows exactly this text by its
// SHA-256 (PAGE_STYLE_SOURCE), so no other inline style, style attribute or injected <style>
// applies, which 'unsafe-inline' would allow.
//
// Mobile first where it matters: below 640 px the two-column parts stack, the buttons take the
// whole width, and a table of invoice items turns each row into a card whose cells carry their
// column's name (data-label), so nothing scrolls sideways on a phone.

export const PAGE_STYLESHEET = [
  ':root{color-scheme:light;--ink:#1d2433;--muted:#5b6475;--line:#dfe3ea;--soft:#f7f8fa;',
  '--accent:#1a56db;--ok:#0f6b39;--ok-bg:#e9f7ef;--ok-line:#a8dbbd;--bad:#b42318;',
  '--bad-bg:#fdeeec;--bad-line:#f3b8b0;--warn:#7a4d00;--warn-bg:#fff5dc;--warn-line:#efcf85}',
  '*{box-sizing:border-box}',
  'html{-webkit-text-size-adjust:100%;text-size-adjust:100%}',
  'body{margin:0;background:#eef1f5;color:var(--ink);font:16px/1.6 system-ui,-apple-system,',
  '"Apple SD Gothic Neo","Malgun Gothic","Noto Sans KR","Noto Sans CJK KR",sans-serif;',
  'word-break:keep-all;overflow-wrap:anywhere}',
  '.brand{max-width:880px;margin:0 auto;padding:18px 33px 0;display:flex;gap:10px;',
  'align-items:baseline;flex-wrap:wrap}',
  '.brand b{color:var(--accent);font-size:1.25rem;letter-spacing:.02em}',
  '.brand span{color:var(--muted);font-size:.875rem}',
  'main{max-width:880px;margin:12px auto 40px;padding:28px 32px;background:#fff;',
  'border:1px solid var(--line);border-radius:14px;box-shadow:0 1px 3px rgba(16,24,40,.06)}',
  'h1{margin:0 0 20px;font-size:1.5rem;line-height:1.3}',
  'h1 .en{display:block;margin-top:2px;font-size:1rem;font-weight:500;color:var(--muted)}',
  'h2{margin:28px 0 10px;font-size:1.0625rem}',
  'p{margin:0 0 14px}',
  'a{color:var(--accent);font-weight:600}',
  '.hint{color:var(--muted);font-size:.875rem;font-weight:400}',
  '.notice{margin:0 0 20px;padding:14px 18px;border:1px solid;border-radius:10px}',
  '.notice p{margin:6px 0 0}',
  '.notice.success{background:var(--ok-bg);border-color:var(--ok-line);color:var(--ok)}',
  '.notice.error{background:var(--bad-bg);border-color:var(--bad-line)}',
  '.notice.error strong{color:var(--bad);font-size:1.0625rem}',
  '.notice.sandbox{background:var(--warn-bg);border-color:var(--warn-line);color:var(--warn);',
  'font-weight:600}',
  'table{width:100%;margin:0 0 20px;border-collapse:collapse;font-size:.9375rem}',
  'th,td{padding:9px 12px;border-bottom:1px solid var(--line);text-align:left;',
  'vertical-align:top}',
  'thead th{background:var(--soft);color:var(--muted);font-size:.8125rem;font-weight:600;',
  'white-space:nowrap}',
  '.facts{border-top:1px solid var(--line)}',
  '.facts th{width:40%;background:var(--soft);color:var(--muted);font-weight:500}',
  '.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}',
  '.total td,.total th{font-weight:700;color:var(--ink)}',
  '.columns{display:grid;grid-template-columns:1fr 1fr;gap:0 24px}',
  '.columns h2{margin-top:8px}',
  'form{margin:0}',
  '.stack{display:grid;gap:16px;margin:4px 0 16px}',
  'label{display:grid;gap:6px;font-weight:600}',
  'input,select{width:100%;min-height:44px;padding:9px 12px;border:1px solid #c3cad6;',
  'border-radius:8px;background:#fff;color:inherit;font:inherit;font-weight:400}',
  'input:focus,select:focus{outline:3px solid rgba(26,86,219,.25);border-color:var(--accent)}',
  'button{min-height:48px;padding:11px 22px;border:1px solid transparent;border-radius:8px;',
  'font:inherit;font-weight:600;cursor:pointer}',
  'button.primary{background:var(--accent);color:#fff}',
  'button.danger{background:#fff;border-color:var(--bad-line);color:var(--bad)}',
  '.decision{display:grid;grid-template-columns:1fr 1fr;gap:16px;margin-top:28px}',
  '.decision form{display:grid;gap:12px;align-content:space-between;padding:18px;',
  'border:1px solid var(--line);border-radius:12px}',
  '.decision p{margin:0}',
  '@media (max-width:640px){',
  '.brand{padding:14px 16px 0}',
  'main{margin:10px 0 0;padding:22px 16px;border-width:1px 0;border-radius:0}',
  'h1{font-size:1.3125rem}',
  '.columns,.decision{grid-template-columns:1fr}',
  'button{width:100%}',
  '.items thead{display:none}',
  '.items,.items tbody,.items tr,.items td{display:block;width:100%}',
  '.items tr{margin:0 0 12px;padding:6px 0;border:1px solid var(--line);border-radius:10px}',
  '.items td{display:flex;justify-content:space-between;gap:16px;padding:5px 14px;border:0;',
  'text-align:right;white-space:normal}',
  '.items td::before{content:attr(data-label);flex:none;color:var(--muted);',
  'font-size:.8125rem;text-align:left}',
  '.items td:empty{display:none}',
  '}',
].join('');

// The CSP source that allows the stylesheet above and nothing else.
export const PAGE_STYLE_SOURCE =
  `'sha256-${createHash('sha256').update(PAGE_STYLESHEET).digest('base64')}'`;
