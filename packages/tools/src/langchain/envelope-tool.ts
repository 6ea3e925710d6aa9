import type { CallbackManagerForToolRun } from "@langchain/core/callbacks/manager";
import { DynamicStructuredTool, StructuredTool } from "@langchain/core/tools";
import type { StructuredToolCallInput, ToolReturnType, ToolRunnableConfig } from "@langchain/core/tools";
import { trackRunWork } from "@thinktank/core";
import type { ToolResponse } from "../tool-response.js";

export interface EnvelopeToolFields {
  readonly name: string;
  readonly description: string;
  /** The JSON Schema of the arguments, as the model is given it. */
  readonly schema: Readonly<Record<string, unknown>>;
  /** Runs one call; checks the arguments itself and never throws. */
  readonly run: (args: unknown, config: ToolRunnableConfig | undefined) => Promise<ToolResponse>;
}

/**
 * A LangChain tool whose result is a ToolResponse envelope, as JSON text. The model is given the
 * tool's own schema, but LangChain does not check calls against it: it would throw on a mismatch
 * before the tools library could log the call and answer TOOL_INVALID_ARGUMENTS in the envelope.
 * So every call goes through a twin with an accept-anything schema, which still formats the
 * ToolMessage (tool_call_id), runs callbacks and honours the run's abort signal: `run` gets it in
 * `config.signal` (the executor kills the script's process tree), and the call is tracked as the
 * run's work, so a cancelled run ends only once the script is gone and its call is logged.
 */
export class EnvelopeTool extends StructuredTool {
  name: string;
  description: string;
  schema: Record<string, unknown>;
  private readonly passThrough: StructuredTool;

  constructor(private readonly fields: EnvelopeToolFields) {
    super();
    this.name = fields.name;
    this.description = fields.description;
    this.schema = { ...fields.schema };
    this.passThrough = new DynamicStructuredTool({
      name: fields.name,
      description: fields.description,
      schema: {},
      func: (args: unknown, _runManager?: CallbackManagerForToolRun, config?: ToolRunnableConfig) => this._call(args, undefined, config),
    });
  }

  override call<TArg extends StructuredToolCallInput, TConfig extends ToolRunnableConfig | undefined>(arg: TArg, configArg?: TConfig, tags?: string[]): Promise<ToolReturnType<TArg, TConfig, unknown>> {
    return this.passThrough.call(arg, configArg, tags) as Promise<ToolReturnType<TArg, TConfig, unknown>>;
  }

  protected async _call(args: unknown, _runManager?: CallbackManagerForToolRun, config?: ToolRunnableConfig): Promise<string> {
    return JSON.stringify(await trackRunWork(config, this.fields.run(args, config)));
  }
}
