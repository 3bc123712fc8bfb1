import { describe, expect, it } from 'vitest';
import { formData, matchesSelector, parseForms } from '../../suites/drivers/html.js';

const CONSENT = `
<html><body>
<form action="/oauth/authorize" method="post" class="consent">
  <input type="hidden" name="authenticity_token" value="csrf&amp;123">
  <input type="hidden" name="client_id" value='abc'>
  <input type="checkbox" name="remember" checked>
  <input type="checkbox" name="unchecked">
  <input name="disabled_one" value="x" disabled>
  <button type="submit" name="commit" value="approve" class="btn primary">Authorize <b>App</b></button>
  <button type="button">Help</button>
</form>
<form action="/oauth/authorize" method="POST">
  <input type="hidden" name="_method" value="delete">
  <input type="submit" name="commit" value="Deny" id="deny">
</form>
</body></html>`;

describe('form parsing', () => {
  const forms = parseForms(CONSENT);

  it('finds every form with its action, method, fields and submit buttons', () => {
    expect(forms).toHaveLength(2);
    expect(forms[0]).toMatchObject({ action: '/oauth/authorize', method: 'post' });
    expect(forms[0].fields.map((f) => [f.name, f.value])).toEqual([
      ['authenticity_token', 'csrf&123'],
      ['client_id', 'abc'],
      ['remember', 'on'],
    ]);
    expect(forms[0].buttons).toHaveLength(1);
    expect(forms[0].buttons[0]).toMatchObject({ name: 'commit', value: 'approve', label: 'Authorize App' });
    expect(forms[1].buttons[0]).toMatchObject({ tag: 'input', value: 'Deny' });
  });

  it('matches buttons by simple selectors or by their text', () => {
    const [approve] = forms[0].buttons;
    const [deny] = forms[1].buttons;
    expect(matchesSelector(approve, 'button[name=commit][value=approve]')).toBe(true);
    expect(matchesSelector(approve, '.primary')).toBe(true);
    expect(matchesSelector(approve, 'input[name=commit]')).toBe(false);
    expect(matchesSelector(deny, '#deny')).toBe(true);
    expect(matchesSelector(deny, 'Deny')).toBe(true);
    expect(matchesSelector(deny, "[value='Deny']")).toBe(true);
    expect(matchesSelector(approve, 'Deny')).toBe(false);
  });

  it('submits the fields, the overrides and the pressed button as a browser would', () => {
    const body = formData(forms[0], { client_id: 'override', extra: '1' }, forms[0].buttons[0]);
    expect(body.toString()).toBe('authenticity_token=csrf%26123&client_id=override&remember=on&extra=1&commit=approve');
  });
});
