import { subscribableEventTypes, type SubscribableEventType } from "@countersign/protocol/wire";

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

export const eventTypesOf = (d: FormData) => d.getAll("event_types").map(String) as SubscribableEventType[];
