/**
 * The `manual` driver: a person at the terminal plays the user. It prints what to open or type on
 * stderr and waits on stdin. Only sensible with a live target and a patient operator.
 */
import { createInterface } from 'node:readline/promises';
import type { Driver, Http } from '../types.js';
import { CheckSkipped, HarnessError } from '../runner/errors.js';
import { devicePageUrl } from './form.js';
import { inert } from '../report/inert.js';

export interface Terminal {
  ask(question: string): Promise<string>;
}

/** Said when stdin ends (Ctrl-D) before an answer: nobody is there to play the user. */
export const NO_OPERATOR =
  'stdin closed before the operator answered: the manual driver needs a person at the terminal';
/** Said when stdin is no terminal (CI's /dev/null, a pipe): nobody is there to read the question. */
export const NO_TERMINAL = 'stdin is not a terminal: the manual driver needs a person at the terminal';

export const stdioTerminal: Terminal = {
  async ask(question) {
    // Without a terminal nobody answers: an ended stdin let Node exit 0 mid-run with no verdict and
    // no report, an open pipe nobody writes held the run forever (the manual driver has no time
    // limit), and a target's own config may name this driver.
    if (!process.stdin.isTTY) throw new HarnessError(NO_TERMINAL);
    if (process.stdin.readableEnded) throw new HarnessError(NO_OPERATOR);
    const rl = createInterface({ input: process.stdin, output: process.stderr });
    try {
      return await new Promise<string>((resolve, reject) => {
        rl.once('close', () => reject(new HarnessError(NO_OPERATOR)));
        rl.question(question).then(resolve, reject);
      });
    } finally {
      rl.close();
    }
  },
};

/** Characters of a user code the question quotes: RFC 8628 §6.1 codes are about 8. */
const USER_CODE_SHOWN = 64;

/**
 * The target's user code as the operator's terminal gets it: inert (an OSC 52 in it wrote the
 * clipboard, an OSC 8 made a link, cursor moves rewrote the question), on one line, cut.
 */
function shownCode(userCode: string): string {
  const cut = userCode.length > USER_CODE_SHOWN ? `${userCode.slice(0, USER_CODE_SHOWN)}…` : userCode;
  return inert(cut).replace(/\n/g, '\\n').replace(/\t/g, '\\t');
}

export function createManualDriver(http: Http, terminal: Terminal = stdioTerminal): Driver {
  const device = async (userCode: string, decision: 'approve' | 'deny', page?: string) => {
    // The page the provider named, without the code (the operator types it, as a person would).
    const open = new URL(devicePageUrl(http, userCode, page));
    open.searchParams.delete('user_code');
    await terminal.ask(
      `\nOpen ${open.href}, enter the user code ${shownCode(userCode)} and ${decision === 'approve' ? 'APPROVE' : 'DENY'} it; then press Enter. `,
    );
  };
  return {
    kind: 'manual',
    async authorize(authorizeUrl, decision) {
      const answer = await terminal.ask(
        `\nOpen this URL in a browser, sign in and ${decision === 'approve' ? 'APPROVE' : 'DENY'} the request:\n  ${authorizeUrl}\n` +
          `Then paste the full URL the browser was sent to (the redirect URI with code or error): `,
      );
      let redirect: URL;
      try {
        redirect = new URL(answer.trim());
      } catch {
        throw new HarnessError('the operator did not paste a URL');
      }
      // The page the operator saw is not available to us; the redirect is what the checks read.
      const response = {
        status: 302,
        headers: new Headers({ location: redirect.href }),
        text: '',
        url: authorizeUrl,
        json: () => ({}) as never,
      };
      return { redirect, response };
    },
    approveDevice: (userCode, page) => device(userCode, 'approve', page),
    denyDevice: (userCode, page) => device(userCode, 'deny', page),
    async advanceClock() {
      throw new CheckSkipped('a manual target offers no clock control');
    },
  };
}
