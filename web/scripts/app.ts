// Behaviour shared by every page: copy buttons (`data-copy="<text>"`), confirmations
// for forms marked `data-confirm="<question>"`, and forms sent as soon as the page loads
// (`data-submit-on-load`: the hand-off of den login, whose button stays for scripts off).

function flash(button: HTMLElement, text: string): void {
  const before = button.textContent;
  button.textContent = text;
  setTimeout(() => {
    button.textContent = before;
  }, 1500);
}

document.addEventListener('click', (event) => {
  const target = event.target as HTMLElement | null;
  const button = target?.closest<HTMLElement>('[data-copy]');
  if (!button) return;
  const text = button.dataset.copy ?? '';
  navigator.clipboard.writeText(text).then(
    () => flash(button, 'Copied'),
    () => flash(button, 'Copy failed: select and copy the text'),
  );
});

document.addEventListener('submit', (event) => {
  const form = event.target as HTMLFormElement;
  const question = form.dataset.confirm;
  if (question && !window.confirm(question)) event.preventDefault();
});

// A checkbox marked data-autosubmit applies its form at once (the catalog's deprecated toggle).
document.addEventListener('change', (event) => {
  const input = event.target as HTMLInputElement;
  if (input.matches('[data-autosubmit]')) input.form?.requestSubmit();
});

// The script is deferred: the document is parsed when it runs.
document.querySelector<HTMLFormElement>('form[data-submit-on-load]')?.requestSubmit();

// A time zone field marked data-browser-zone starts with this browser's zone when it is empty
// (the schedule's times are read in it); the person may change it, and the server ignores a zone
// sent with no start, stop or running time.
for (const input of document.querySelectorAll<HTMLInputElement>('input[data-browser-zone]')) {
  if (input.value === '') input.value = Intl.DateTimeFormat().resolvedOptions().timeZone ?? '';
}
