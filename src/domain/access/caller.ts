/** A customer sees and moves only its own orders; staff see and move all of them. */
export const ROLES = ['customer', 'staff'] as const;
export type Role = (typeof ROLES)[number];

/** Who is asking: the identity orders are owned by (an API key's holder digest, the same for all its secrets) and its role. */
export interface Caller {
  readonly id: string;
  readonly role: Role;
}
