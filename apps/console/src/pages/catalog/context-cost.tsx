// A skill's or a plugin's context cost: what it adds to what the model is sent, in tokens (o200k, as
// the agent counts), in the full listing (every request names it) and the compact one (a group count
// in every request, a line on the messages it is offered with).
import type { ListingCost } from "../../api/catalog-api.js";

const number = (value: number) => value.toLocaleString("en");

export function ContextCost({ cost, bodyTokens, headingLevel = 2 }: { readonly cost: ListingCost | undefined; readonly bodyTokens?: number; readonly headingLevel?: 2 | 3 }) {
  if (!cost) return null;
  const Heading = headingLevel === 2 ? "h2" : "h3";
  return (
    <section className="catalog-section" aria-label="Context cost">
      <Heading>Context cost</Heading>
      <dl className="catalog-facts">
        <dt>Full listing</dt>
        <dd>
          {number(cost.full.tokens)} tokens in every request
          {cost.full.commands + cost.full.agents > 0 && (
            <span className="muted">
              {" "}
              (skills {number(cost.full.skills)}, commands {number(cost.full.commands)}, sub-agents {number(cost.full.agents)})
            </span>
          )}
        </dd>
        <dt>Compact listing</dt>
        <dd>
          {number(cost.compact.tokens)} tokens in every request, {number(cost.compact.offered_tokens)} on the messages its skills are offered with
        </dd>
        {bodyTokens !== undefined && (
          <>
            <dt>When read</dt>
            <dd>{number(bodyTokens)} tokens (its SKILL.md)</dd>
          </>
        )}
      </dl>
    </section>
  );
}
