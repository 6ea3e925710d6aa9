/**
 * Makes LangChain await every callback handler where it is called, for the whole process.
 *
 * LangGraph produces stream mode "messages" (the API's `messages-tuple` and `messages`) from a
 * callback handler, not from the graph's own loop. LangChain runs a handler that does not ask to be
 * awaited on one process-wide background queue (one task at a time) and does not wait for it. When
 * several runs advance in the same turn of the event loop (they share awaited work, and the SQLite
 * checkpointer is synchronous), that queue falls behind the graphs: a run's `messages` come after
 * the step's `values`, or after its stream has closed, where LangGraph drops them without a word
 * (about 19 of 32 streams started at once lost their last 4 events). With
 * LANGCHAIN_CALLBACKS_BACKGROUND=false the model awaits each token's handler, so every message is in
 * the run's stream, in order, before the model call returns.
 *
 * LangChain reads the variable when a handler is created (LangGraph creates one per run), so
 * setting it before the first run covers them all; a value set by the user is overridden on purpose.
 */
export function awaitCallbackHandlers(env: NodeJS.ProcessEnv = process.env): void {
  env.LANGCHAIN_CALLBACKS_BACKGROUND = "false";
}
