/** PostgreSQL channel on which a change of an action's state is announced, payload the action id. */
export const ACTION_CHANNEL = "countersign_actions";
