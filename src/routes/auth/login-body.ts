import type { IssuedToken } from '../../domain/access-tokens.js';
import type { ApiUser } from '../../domain/users.js';

/** POST /login's success body (api.md 4.1), fields in the order of decisions.md section 3. */
export function loginBody(user: Pick<ApiUser, 'id' | 'username' | 'email' | 'firstname' | 'lastname'>, issued: IssuedToken) {
  return {
    success: true,
    message: 'success',
    data: {
      id: Number(user.id),
      username: user.username,
      email: user.email,
      firstname: user.firstname,
      lastname: user.lastname,
      api_key: issued.plainTextToken,
    },
    api_key: issued,
  };
}
