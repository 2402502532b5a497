// Request shapes of SPEC 2.6 for sessions, tokens, the profile and local users, and the
// query of POST /tokens (SPEC defines no body there, so the scope is a query parameter).
import { exact, fields } from '../http/validate.js';
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from '../auth/passwords.js';
import { USERNAME_PATTERN } from '../auth/local-users.js';
import { DNS1123_LABEL, DNS1123_LABEL_MAX } from '../../kube/names.js';

const { string } = fields;
const TOKEN_NAME_RULE = 'name must be 1-63 lower-case letters, digits or "-", starting and ending with a letter or digit';

function newPassword(field: string) {
  return string()
    .required(`${field} is required`)
    .min(PASSWORD_MIN_LENGTH, `${field} must be at least ${PASSWORD_MIN_LENGTH} characters`)
    .max(PASSWORD_MAX_LENGTH, `${field} must be at most ${PASSWORD_MAX_LENGTH} characters`);
}

export const loginRequest = exact({
  username: string().required('username is required').max(253, 'username must be at most 253 characters'),
  password: string().required('password is required').max(PASSWORD_MAX_LENGTH, `password must be at most ${PASSWORD_MAX_LENGTH} characters`),
});

export const passwordRequest = exact({
  current_password: string().required('current_password is required').max(PASSWORD_MAX_LENGTH, `current_password must be at most ${PASSWORD_MAX_LENGTH} characters`),
  new_password: newPassword('new_password'),
});

export const localUserRequest = exact({
  username: string()
    .required('username is required')
    .matches(USERNAME_PATTERN, 'username must be 1-63 lower-case letters, digits, "-" or ".", starting and ending with a letter or digit'),
  password: newPassword('password'),
  owner: string().required('owner is required').max(253, 'owner must be at most 253 characters').matches(/^\S+$/, 'owner must not contain spaces'),
});

export const sshKeyRequest = exact({
  key: string().required('key is required').max(16384, 'key must be at most 16384 characters'),
});

export const issueTokenQuery = exact({
  scope: string().oneOf(['full', 'read'], 'scope must be full or read'),
  name: string()
    .max(DNS1123_LABEL_MAX, TOKEN_NAME_RULE)
    .matches(DNS1123_LABEL, TOKEN_NAME_RULE),
});
