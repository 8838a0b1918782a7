/** The words of the pages about mail (links from mails, invitations, mail status), in English: the reference. */
export const mailWordsEn = {
  // Forgot password, set a new password.
  forgotPassword: 'Forgot your password?',
  forgotTitle: 'Forgot your password',
  forgotHint: 'Enter the e-mail address of your login. If it is known, a link to set a new password is on its way; the mail also names your username.',
  sendLink: 'Send the link',
  backToLogin: 'Back to the login',
  resetTitle: 'Set a new password',
  resetHint: 'At least 8 characters. Afterwards you are signed in here, and every other device is signed out.',
  repeatPassword: 'Repeat the password',
  setNewPassword: 'Set the password',
  requestNewLink: 'Request a new link',
  passwordSet: 'Your new password is set, and you are signed in.',
  // Accepting an invitation.
  invitationTitle: 'Accept the invitation',
  invitedBy: (inviter: string, tenant: string) => `${inviter} invites you to ${tenant}.`,
  invitedTo: (tenant: string) => `You are invited to ${tenant}.`,
  areYou: (name: string) => `Are you ${name}?`,
  yesThatIsMe: 'Yes, that is me',
  noNotMe: 'No, that is not me',
  notMeExplained: 'Then this invitation is not meant for you: please do not use it, and tell the person who sent it, so that they can correct the address. Nothing has been changed.',
  chooseLogin: 'Choose the username and the password you will sign in with.',
  createMyLogin: 'Create my login',
  loginCreated: 'Your login is ready, and you are signed in. Welcome!',
  // Inviting a person, and their mail status.
  inviteByEmail: 'Invite by e-mail',
  inviteHint: (email: string) => `Sends ${email} a link with which the person chooses a username and a password. It is valid for 7 days; a new invitation replaces an earlier one.`,
  confirmInvite: (name: string, email: string) => `Send ${name} an invitation to ${email}?`,
  earlierInvitationStops: 'If an invitation was sent earlier, its link stops working.',
  invitationSent: (email: string, until: string) => `Invitation sent to ${email}. It is valid until ${until}.`,
  mailFailingTitle: 'Mail to this address fails',
  mailFailing: (email: string, since: string) => `The mail server has refused mail to ${email} since ${since}. No more mail goes there until the address is changed or marked as working.`,
  lastMailError: 'Last refusal',
  markMailWorking: 'Mark the address as working again',
  confirmMarkMailWorking: (email: string) => `Mark ${email} as working again? Mail will be sent to it again.`,
  mailMarkedWorking: 'The address counts as working again.',
  loginNone: 'No login for now',
  inviteNeedsEmail: 'The invitation goes to the e-mail address entered above.',
  addedAndInvited: (name: string, email: string) => `${name} added. An invitation is on its way to ${email}.`,
  addedNotInvited: (name: string, reason: string) => `${name} added, but not invited: ${reason}`,
};

export type MailWords = typeof mailWordsEn;
