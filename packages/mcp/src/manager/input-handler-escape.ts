/**
 * What the caller's input handler threw (a LangGraph interrupt pausing the run, say), carried out
 * of the call untouched: ManagedServer rethrows `escaped` as it was, never retried or reworded.
 */
export class InputHandlerEscape extends Error {
  constructor(readonly escaped: unknown) {
    super("the input handler of an input_required round threw");
    this.name = "InputHandlerEscape";
  }
}
