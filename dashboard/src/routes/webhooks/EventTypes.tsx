import { subscribableEventTypes, type SubscribableEventType } from "@countersign/protocol/wire";
import { choices } from "../../components/ActionForm.js";

/** The event types an endpoint subscribes to, one checkbox each. */
export function EventTypes({ selected = ["receipt.created"] }: { selected?: readonly string[] }) {
  return (
    <fieldset>
      <legend>Event types</legend>
      {subscribableEventTypes.map((t) => (
        <label key={t} className="inline">
          <input type="checkbox" name="event_types" value={t} defaultChecked={selected.includes(t)} /> {t}
        </label>
      ))}
    </fieldset>
  );
}

export const eventTypesOf = (d: FormData): SubscribableEventType[] =>
  choices(d, "event_types", subscribableEventTypes);
