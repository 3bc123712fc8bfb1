/**
 * What the form and browser drivers assume when the target config's `driver` section says
 * nothing: the sign-in path and field names the source's provider uses, and consent buttons found
 * by what they say. The simulator writes its own exact values into the config it serves, so the
 * harness never needs simulator code to play its pages.
 */
export const SIGN_IN_DEFAULTS = {
  signInPath: '/users/sign_in',
  loginField: 'user[login]',
  passwordField: 'user[password]',
} as const;

/**
 * Words in the name of a username field that stands alone (identifier-first sign-in: the password
 * is asked on the next page), besides the configured `loginField`: `login`, `loginfmt`, `username`,
 * `email`, `identifier`, as the common providers name it. Not `user` alone: the device page's
 * `user_code` is no username.
 */
export const IDENTIFIER_WORDS = ['login', 'username', 'user_name', 'email', 'identifier'] as const;

/**
 * The approving words that grant an application access, never said of terms of use (accept, agree,
 * confirm, continue are): an agreement step's button saying one is the consent's approval.
 */
// prettier-ignore
const GRANT_WORDS = [
  'approve', 'authori[sz]e', 'allow', 'grant', 'zulassen', 'erlauben', 'genehmigen', 'autoriser', 'autorizar', 'permitir',
] as const;

/**
 * What the drivers press, by what pressing it does, as whole words of a control's label (and, in
 * the form driver, its value and name), in English, German, French and Spanish: the one list both
 * drivers read (the form driver as patterns, the browser driver as Playwright selectors).
 */
// prettier-ignore
export const CONTROL_WORDS = {
  approve: [...GRANT_WORDS, 'accept', 'confirm', 'akzeptieren', 'accepter', 'aceptar'],
  /** What grants access (GRANT_WORDS), among approve's. */
  grant: GRANT_WORDS,
  deny: [
    'deny', 'reject', 'decline', 'refuse', 'cancel', 'abort', "don'?t allow", 'do not allow',
    'ablehnen', 'verweigern', 'abbrechen', 'refuser', 'annuler', 'rejeter', 'denegar', 'rechazar', 'cancelar',
  ],
  /** What sends the credentials. */
  signIn: ['sign in', 'log in', 'login', 'anmelden', 'se connecter', 'connexion', 'iniciar sesi[oó]n'],
  /** A step on the way to the decision (a user code entered, a notice read). */
  step: [
    'continue', 'submit', 'next', 'verify', 'proceed', 'ok',
    'weiter', 'fortfahren', 'continuer', 'suivant', 'continuar', 'siguiente',
  ],
  /** Putting off what can wait (a second factor to set up): taken before any other step. */
  postpone: ['skip', 'later', 'not now', 'später', 'plus tard', 'ignorer', 'omitir'],
  /** A question's answers ("Stay signed in?"), pressed as the decision leans, without being it. */
  yes: ['yes', 'ja', 'oui', 'si'],
  no: ['no', 'nein', 'non'],
  /** About something else than the sign-in (a cookie banner's "Accept all cookies"): never pressed, never an approval. */
  aside: ['cookies?'],
  /**
   * A banner's choice without the word cookies ("Accept all", as banners say it in each language):
   * set aside on a link (a page of links only has no consent form), never on a button, where a
   * granular consent approves the scopes it lists so ("Allow all"). Read by sign-in.ts alone.
   */
  asideLink: [
    'accept all', 'allow all', 'alle akzeptieren', 'alle zulassen', 'tout accepter', 'accepter tout',
    'aceptar todo', 'aceptar todas', 'permitir todo', 'permitir todas',
  ],
  /** What leaves the user's session or picks another account: never pressed as the user's account. */
  away: ['sign ?out', 'log ?out', 'abmelden', 'déconnexion', 'another', 'other', 'not you', 'andere', 'autre', 'otra'],
} as const;

export type ControlRole = keyof typeof CONTROL_WORDS;

/**
 * Phrases by which a page asks a person to let an application in (a consent written for people:
 * "Sample App would like to access your account", "It will be able to see your name"), in the
 * languages of CONTROL_WORDS. Read only on a deny visit, before a step that might approve, in the
 * text the page shows (pageText's `shown`): a page saying one is taken for the consent itself and
 * nothing on it is followed (a denial untested rather than a grant made on the configured user's
 * account; an interstitial saying one errs that check alone). No bare word ("consent", a cookie
 * banner's; "permission", a password page's), and a wish only when a few words on it reaches for
 * "your" something (not Google's "wants to make sure it's really you").
 */
// prettier-ignore
export const CONSENT_PHRASES = [
  "(?:would like|wants) to(?: \\S+){0,3}? (?:access|see|use|view|manage|read) your",
  'is requesting', 'requests? access', 'access to your', 'on your behalf', 'will be able to',
  'möchte(?: \\S+){0,3}? (?:auf )?(?:ihre?[mnrs]?|deine?[mnrs]?)', 'zugriff auf', 'in ihrem namen',
  'souhaite(?: \\S+){0,3}? (?:accéder|voir|utiliser|consulter|gérer) (?:à )?(?:vos|votre|tes|ton|ta)',
  'accès à votre', 'en votre nom',
  'quiere(?: \\S+){0,3}? (?:acceder|ver|usar|consultar|gestionar|administrar) (?:a )?(?:tus?|sus?)',
  'acceso a tu', 'en tu nombre',
] as const;

/**
 * A role's words as a pattern source: whole words anywhere in the label, or (`yes`, `no`) the
 * label's first word, so that "No" is an answer and "Not now" is not.
 */
export function controlPattern(role: ControlRole): string {
  const words = `(?:${CONTROL_WORDS[role].join('|')})`;
  return role === 'yes' || role === 'no' ? `^\\s*${words}\\b` : `\\b${words}\\b`;
}

/** Controls a person presses: buttons of every kind, and elements a script made buttons of. */
const BUTTONS = 'button, input[type="submit" i], input[type="button" i], [role="button"]';
const PRESSABLE = `:is(${BUTTONS})`;

/**
 * An element whose text matches `source` (case-insensitive), its own or a descendant's: Playwright's
 * :text-matches takes the smallest element holding the text, the <strong> of `<button><strong>…`.
 */
const saying = (source: string) => {
  const matches = `:text-matches(${JSON.stringify(source)}, "i")`;
  return `:is(${matches}, :has(${matches}))`;
};

/** A CSS condition: the control says none of `role`'s words. */
export const notSaying = (role: ControlRole) => `:not(${saying(controlPattern(role))})`;

/** A pressable control saying `role`'s words and none of `unless`'s, nor anything aside (cookies). */
export function roleSelector(role: ControlRole, unless?: ControlRole): string {
  return `${PRESSABLE}${saying(controlPattern(role))}${unless ? notSaying(unless) : ''}${notSaying('aside')}`;
}

/** The configured username as a whole word of a label (an account picker's tile, "Continue as root"). */
export function accountPattern(username: string): string {
  return `(?<!\\w)${username.replace(/[\\^$.*+?()[\]{}|]/g, '\\$&')}(?!\\w)`;
}

/**
 * What an account picker says ("Choose an account", Google's; "Pick an account", Entra ID's): on
 * such a page a plain link naming the user is their entry, and one naming none of theirs is a
 * missing premise (sign-in.ts, accountNotListed). The one list both drivers read.
 */
export const PICKER_PATTERN =
  '\\b(?:(?:choose|pick|select) an? account|konto auswählen|choisi(?:r|ssez) un compte|(?:elige|selecciona) una cuenta)\\b';

/**
 * What a link that offers one way to sign in says at its start ("Log in with GitHub", Dex's
 * connectors; "Sign in with Google", a broker's), in the languages of the control words.
 */
export const SIGN_IN_WAY_PATTERN =
  '^\\s*(?:log ?in|sign ?in|continue|anmelden|se connecter|iniciar sesi[oó]n)\\s+(?:with|using|via|mit|avec|con)\\b';

/**
 * Browser driver: a control naming the user (a tile a script made a link, too), not one leaving the
 * session or picking another. A plain link only on an account picker's page: elsewhere a page's
 * header links to the user's profile.
 */
export const accountSelector = (username: string): string => {
  const entry = `${saying(accountPattern(username))}:not(${saying(controlPattern('away'))})`;
  return `:is(${BUTTONS}, [role="link"])${entry}, body${saying(PICKER_PATTERN)} a[href]${entry}`;
};

/** Browser driver defaults for the consent buttons, used when the config names no selector. */
export const DECISION_SELECTORS = {
  approve: `button[value="approve" i], ${roleSelector('approve', 'deny')}`,
  deny: `button[value="deny" i], ${roleSelector('deny')}`,
} as const;

/** Not a way to sign in ("Continue with Google"): such a control is no step (sign-in.ts, wayToSignIn). */
const NOT_A_WAY = `:not(${saying(SIGN_IN_WAY_PATTERN)})`;

/**
 * Browser driver defaults for sign-in applications (no form to submit with Enter): the button that
 * signs in, and a control that leads on once the decision is made (a "Continue" button or link).
 */
export const STEP_SELECTORS = {
  // Never a way to sign in elsewhere ("Sign in with Google" says "sign in" too), as the others.
  signIn: `${roleSelector('signIn')}${NOT_A_WAY}, button[type="submit"]${NOT_A_WAY}`,
  /** The button that sends the username alone, on a page with no form to submit with Enter. */
  identify: `${PRESSABLE}${saying('\\b(?:next|continue)\\b')}${NOT_A_WAY}, button[type="submit"]${NOT_A_WAY}`,
  continue: ['continue', 'proceed', 'return to', 'back to']
    .flatMap((word) => [
      `button:has-text("${word}")${NOT_A_WAY}`,
      `a:has-text("${word}")${NOT_A_WAY}`,
      `input[type="submit"][value="${word}" i]`,
    ])
    .join(', '),
} as const;

/**
 * What a consent page's checkbox of a scope has in its name (Spring Authorization Server's
 * `scope`, Ory Hydra's `grant_scope`): an approval ticks those left unticked, no other box.
 */
export const SCOPE_BOX_NAME = 'scope';

/**
 * What the name of a box a page wants ticked before going on has in it (terms of use, a policy),
 * besides the boxes it marks `required`: ticked as a person going on would. Never a scope box.
 */
export const AGREEMENT_BOX_WORDS = ['agree', 'terms', 'tos', 'accept', 'eula', 'policy', 'conditions'] as const;

/** Browser driver: such a box, unticked. */
export const AGREEMENT_BOXES = `input[type="checkbox" i]:not(:checked):not([disabled]):not([name*="${SCOPE_BOX_NAME}" i]):is([required], ${AGREEMENT_BOX_WORDS.map((w) => `[name*="${w}" i]`).join(', ')})`;
