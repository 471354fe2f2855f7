import { Checkbox, SimpleGrid } from "@mantine/core";
import { subscribableEventTypes, type SubscribableEventType } from "@countersign/protocol/wire";
import { choices } from "../../components/ActionForm.js";

/** The event types an endpoint subscribes to, one checkbox each (the wire's own names). */
export function EventTypes({ selected = ["receipt.created"] }: { selected?: readonly string[] }) {
  return (
    <Checkbox.Group
      label="Event types"
      description="The endpoint receives these events, and only these; at least one."
      defaultValue={[...selected]}
    >
      <SimpleGrid cols={{ base: 1, xs: 2 }} spacing="xs" verticalSpacing="xs" mt="xs">
        {subscribableEventTypes.map((t) => (
          <Checkbox key={t} name="event_types" value={t} label={t} />
        ))}
      </SimpleGrid>
    </Checkbox.Group>
  );
}

export const eventTypesOf = (d: FormData): SubscribableEventType[] =>
  choices(d, "event_types", subscribableEventTypes);
