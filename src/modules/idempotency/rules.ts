// What other modules use of this module's queries: named here, so that its tables stay its own.
export { forgetAnswersAbout } from './queries.js';
