// Behaviour shared by every page: copy buttons (`data-copy="<text>"`) and confirmations
// for forms marked `data-confirm="<question>"`.

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
