// The dashboard's own script, bundled by esbuild (src/dashboard/assets.ts). Pages work without
// it; it adds what plain HTML cannot: a copy button, a confirmation before a destructive
// form is sent, and the tax-invoice forms' line editor (line-editor.tsx). Nothing here reads
// or writes anything but the page.
import { setUpLineEditors } from './line-editor.tsx';

function setUpCopyButtons(root: ParentNode) {
  for (const button of root.querySelectorAll<HTMLButtonElement>('button[data-copy]')) {
    if (button.dataset.ready === 'true') continue;
    button.dataset.ready = 'true';
    button.hidden = false;
    button.addEventListener('click', async () => {
      const source = document.getElementById(button.dataset.copy ?? '');
      if (source === null) return;
      await navigator.clipboard.writeText(source.textContent ?? '');
      const label = button.textContent;
      button.textContent = button.dataset.copied ?? label;
      setTimeout(() => { button.textContent = label; }, 2000);
    });
  }
}

// Forms with data-confirm ask before they are sent.
document.addEventListener('submit', (event) => {
  const form = event.target;
  if (!(form instanceof HTMLFormElement)) return;
  const question = form.dataset.confirm;
  if (question !== undefined && !window.confirm(question)) {
    event.preventDefault();
    return;
  }
  // A form that charges or starts work is sent once: a double click sends nothing more.
  if (form.dataset.once !== undefined) {
    if (form.dataset.sent === 'true') event.preventDefault();
    form.dataset.sent = 'true';
  }
});

setUpCopyButtons(document);
setUpLineEditors(document);
// Parts of a page htmx puts in get the same treatment.
document.addEventListener('htmx:afterSwap', (event) => {
  if (event.target instanceof Element) {
    setUpCopyButtons(event.target);
    setUpLineEditors(event.target);
  }
});
// A page restored from the back-forward cache may be sent again.
window.addEventListener('pageshow', () => {
  for (const form of document.querySelectorAll<HTMLFormElement>('form[data-sent]')) {
    delete form.dataset.sent;
  }
});
