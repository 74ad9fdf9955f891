import type { Session } from "./session.ts";

/**
 * What every page of the console is: a function that fills the main region for a signed-in session (with the
 * route's parameter, such as a sandbox id) and returns a cleanup. main.ts routes to views; views import only this.
 */
export type View = (
  session: Session,
  main: HTMLElement,
  param: string | undefined,
) => (() => void) | undefined;
