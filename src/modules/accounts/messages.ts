/** The words of the accounts endpoints (the web app translates them from this exact English). */
export const accountMessages = {
  forgotAnswer: 'If the address is known, a link is on its way.',
  resetInvalid: 'The reset link is invalid or has expired.',
  invitationInvalid: 'The invitation is invalid or has expired.',
  personDeactivated: 'The person is deactivated.',
  personHasLogin: 'The person already has a login.',
  personHasNoEmail: 'The person has no e-mail address.',
  addressRefused: 'The e-mail address was refused before.',
} as const;
