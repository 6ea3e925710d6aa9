/**
 * A document the worker cannot convert (corrupt, encrypted, not what its name says): the message
 * is the short reason the user is shown, so it never names a path or quotes a parser.
 */
export class DocumentProblem extends Error {
  override readonly name = "DocumentProblem";
}
