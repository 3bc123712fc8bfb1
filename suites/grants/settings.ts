/**
 * Instance settings through the simulator control API (`/-/simulator/settings`): a check switches
 * one setting for its own duration and always puts the previous value back, so the checks after it
 * see the instance as it was.
 */
import type { CheckContext } from '../types.js';
import { CONTROL_PREFIX } from '../drivers/simulator.js';
import { jsonObject } from '../shared/oauth.js';

const SETTINGS_PATH = `${CONTROL_PREFIX}/settings`;

const setSetting = (t: CheckContext, name: string, value: unknown) =>
  t.http.post(SETTINGS_PATH, { json: { [name]: value } });

function expectSet(t: CheckContext, res: Awaited<ReturnType<typeof setSetting>>, name: string, value: unknown): void {
  t.expect(
    res.status === 200 && jsonObject(res)?.[name] === value,
    `the control API did not set ${name} to ${JSON.stringify(value)}`,
    { status: res.status },
  );
}

/** Run `body` with setting `name` at `value`, then restore the value it had before. */
export async function withSetting(
  t: CheckContext,
  name: string,
  value: unknown,
  body: () => Promise<void>,
): Promise<void> {
  const before = await t.http.get(SETTINGS_PATH);
  const settings = jsonObject(before);
  t.expect(
    before.status === 200 && settings && name in settings,
    `the control API does not report the setting ${name}`,
    { status: before.status },
  );
  const previous = settings[name];
  expectSet(t, await setSetting(t, name, value), name, value);
  let finished = false;
  try {
    await body();
    finished = true;
  } finally {
    // Always restore; complain about a failed restore only when the check itself has not failed.
    const restored = await setSetting(t, name, previous);
    if (finished) expectSet(t, restored, name, previous);
  }
}
