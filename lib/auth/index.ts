// The public surface of lib/auth: what code outside the folder imports (rule layers/public-surface in
// lint/layers.mjs; the light entries it lists are the exceptions). Its own files import each other by path.
export { getCurrentUser, requireApiUser, requireUser } from "./guard";
export { afterSignIn, localPath } from "./redirect";
export { clearedSessionCookie, deleteSession, deleteUserSessions, isSecureRequest, sessionTokenOf } from "./session";
export {
  authenticate,
  createUser,
  findUserByEmail,
  generatePassword,
  listUsers,
  passwordSchema,
  ROLES,
  type SessionUser,
  updateUser,
  UserExistsError,
  userUpdateInput,
  type UserView,
} from "./users";
