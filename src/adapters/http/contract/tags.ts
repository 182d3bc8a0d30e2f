/** The groups the operations are listed under (OpenAPI tags), each with what it holds. */
export const TAGS = {
  Pets: 'The animals of the shop: list them, filter them by status, add one, fetch one.',
  Store: 'Orders for animals, their status from placed to delivered or cancelled, and the inventory by status.',
  Quota: "The caller's own rate limits, read without spending them.",
} as const;

export type TagName = keyof typeof TAGS;
