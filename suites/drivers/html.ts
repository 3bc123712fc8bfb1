/**
 * Just enough HTML reading to drive a sign-in or consent page of any provider: the forms, their
 * action and method, their inputs (hidden ones carry the CSRF token) and their submit buttons.
 */

export interface FormField {
  name: string;
  value: string;
  type: string;
}

export interface SubmitButton {
  tag: 'button' | 'input';
  name?: string;
  value?: string;
  /** The button's visible text (or its value for input buttons). */
  label: string;
  attrs: Record<string, string>;
}

export interface HtmlForm {
  action: string;
  method: string;
  attrs: Record<string, string>;
  fields: FormField[];
  buttons: SubmitButton[];
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0' };

export function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, ref: string) => {
    if (ref[0] === '#') {
      const code = ref[1].toLowerCase() === 'x' ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10);
      return Number.isFinite(code) ? String.fromCodePoint(code) : whole;
    }
    return ENTITIES[ref.toLowerCase()] ?? whole;
  });
}

export function parseAttributes(tag: string): Record<string, string> {
  const attrs: Record<string, string> = {};
  const body = tag.replace(/^<\s*[\w-]+/, '').replace(/\/?>$/, '');
  const re = /([^\s=/>"']+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>"']+)))?/g;
  for (let m = re.exec(body); m; m = re.exec(body)) {
    attrs[m[1].toLowerCase()] = decodeEntities(m[2] ?? m[3] ?? m[4] ?? '');
  }
  return attrs;
}

const stripTags = (html: string) =>
  decodeEntities(html.replace(/<[^>]*>/g, ''))
    .replace(/\s+/g, ' ')
    .trim();

export function parseForms(html: string): HtmlForm[] {
  const forms: HtmlForm[] = [];
  const formRe = /<form\b[^>]*>([\s\S]*?)<\/form\s*>/gi;
  for (let m = formRe.exec(html); m; m = formRe.exec(html)) {
    const attrs = parseAttributes(/^<form\b[^>]*>/i.exec(m[0])![0]);
    const inner = m[1];
    const fields: FormField[] = [];
    const buttons: SubmitButton[] = [];
    const controlRe = /<(input|select|textarea)\b[^>]*>|<button\b[^>]*>([\s\S]*?)<\/button\s*>/gi;
    for (let c = controlRe.exec(inner); c; c = controlRe.exec(inner)) {
      const tag = /^<[^>]*>/.exec(c[0])![0];
      const a = parseAttributes(tag);
      const kind = (c[1] ?? 'button').toLowerCase();
      if (kind === 'button') {
        const type = (a.type ?? 'submit').toLowerCase();
        if (type === 'submit')
          buttons.push({ tag: 'button', name: a.name, value: a.value, label: stripTags(c[2] ?? ''), attrs: a });
        continue;
      }
      if (!a.name && kind !== 'input') continue;
      const type = (a.type ?? (kind === 'input' ? 'text' : kind)).toLowerCase();
      if (kind === 'input' && (type === 'submit' || type === 'image')) {
        buttons.push({ tag: 'input', name: a.name, value: a.value, label: a.value ?? '', attrs: a });
        continue;
      }
      if (!a.name || 'disabled' in a) continue;
      if ((type === 'checkbox' || type === 'radio') && !('checked' in a)) continue;
      fields.push({ name: a.name, value: a.value ?? (type === 'checkbox' ? 'on' : ''), type });
    }
    forms.push({ action: attrs.action ?? '', method: (attrs.method ?? 'get').toLowerCase(), attrs, fields, buttons });
  }
  return forms;
}

/**
 * A small selector: `tag`, `#id`, `.class`, `[attr]`, `[attr=value]` combined (`button[name=commit][value=Authorize]`),
 * or, when it is none of those, text matched against the button's label or value.
 */
export function matchesSelector(button: SubmitButton, selector: string): boolean {
  const sel = selector.trim();
  if (!/^[\w-]*([#.][\w-]+|\[[^\]]+\])*$/.test(sel) || !/[#.[]/.test(sel)) {
    const needle = sel.toLowerCase();
    return button.label.toLowerCase() === needle || (button.value ?? '').toLowerCase() === needle;
  }
  const tag = /^[\w-]+/.exec(sel)?.[0];
  if (tag && tag.toLowerCase() !== button.tag) return false;
  for (const part of sel.match(/[#.][\w-]+|\[[^\]]+\]/g) ?? []) {
    if (part[0] === '#' && button.attrs.id !== part.slice(1)) return false;
    if (part[0] === '.' && !(button.attrs.class ?? '').split(/\s+/).includes(part.slice(1))) return false;
    if (part[0] === '[') {
      const [, name, value] = /^\[\s*([^=\s\]]+)\s*(?:=\s*["']?([^"'\]]*)["']?)?\s*\]$/.exec(part) ?? [];
      if (!name) return false;
      const actual = button.attrs[name.toLowerCase()];
      if (actual === undefined || (value !== undefined && actual !== value)) return false;
    }
  }
  return true;
}

/** The form's fields as a body, with the chosen button's name=value appended as a browser does. */
export function formData(form: HtmlForm, values: Record<string, string> = {}, button?: SubmitButton): URLSearchParams {
  const body = new URLSearchParams();
  const overridden = new Set<string>();
  for (const field of form.fields) {
    if (field.name in values) {
      if (!overridden.has(field.name)) body.append(field.name, values[field.name]);
      overridden.add(field.name);
    } else body.append(field.name, field.value);
  }
  for (const [k, v] of Object.entries(values)) if (!overridden.has(k)) body.append(k, v);
  if (button?.name) body.append(button.name, button.value ?? '');
  return body;
}
