/**
 * The text the browser holds in a form's fields. A value set by a password manager, an autofill extension or some
 * phone keyboards' paste reaches the field without an event React sees, so the widget's state can lag the screen;
 * at submit the screen is the truth. Checkboxes and radio buttons are left out: a click always reaches React.
 */
const TEXT_FIELDS = "input:not([type=checkbox]):not([type=radio]):not([type=hidden]):not([type=file]):not([type=submit]), textarea, select";

/** `athletes[0][email]` (the HTML name) to `athletes.0.email` (the field kit's path). */
export const pathOf = (htmlName: string) => htmlName.replace(/\[([^\]]*)\]/g, ".$1");

export function textValuesOf(form: HTMLFormElement): Record<string, string> {
  const values: Record<string, string> = {};
  for (const el of form.querySelectorAll<HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement>(TEXT_FIELDS)) {
    if (el.name && !el.disabled) values[pathOf(el.name)] = el.value;
  }
  return values;
}

/** The state with the screen's text laid over it; the same object when nothing differs. */
export function withScreenValues<T extends Record<string, unknown>>(state: T, form: HTMLFormElement | null, known?: (name: string) => boolean): T {
  if (!form) return state;
  let next = state;
  for (const [name, value] of Object.entries(textValuesOf(form))) {
    if (known && !known(name)) continue;
    if (state[name] !== value && !(state[name] === undefined && value === "")) {
      if (next === state) next = { ...state };
      (next as Record<string, unknown>)[name] = value;
    }
  }
  return next;
}
