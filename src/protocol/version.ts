/**
 * The control protocol's version, reported by `get_state` and `ping`. It goes up by one whenever a change
 * could break an existing client: a command, field or event removed or renamed, a field's type or meaning
 * changed, a field that was optional becoming required in a command. Additions (new commands, new optional
 * fields, new events) do not change it: clients ignore what they do not know.
 */
export const PROTOCOL_VERSION = 1;
