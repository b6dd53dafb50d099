/**
 * How a loopback client shows the receiver's token when `serve --require-token` asks for it
 * (docs/security.md, "On macOS and Windows"): the names both the serve process and the extension's
 * clients use. The receiver takes each off a request before the worker sees it.
 */

/** Header a tool sends the admin token in. */
export const TOKEN_HEADER = 'x-hookbench-token';
/** Query parameter an agents client (`AgentClient({ query })`) sends it in. */
export const TOKEN_PARAM = 'hookbench_token';
/** Cookie a browser holds after the login URL; its value is derived from the token, never the token. */
export const SESSION_COOKIE = 'hookbench_session';
/** The login route: `?hookbench_token=…&next=/path` sets the cookie and sends the browser on. */
export const LOGIN_PATH = '/__hookbench/login';
