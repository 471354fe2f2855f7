import { ServiceError } from "@countersign/protocol/errors";

/** SPEC 5.6: an organization always keeps an owner; a change that would leave none is refused. */
export const lastOwner = () => new ServiceError("LAST_OWNER", "the organization needs at least one owner");
