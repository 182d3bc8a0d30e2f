import type { PetPageQuery, StoredPetPage } from '../ports/pet-repository.js';

/**
 * The pages a turn's queries ask for, each distinct page read once: under load most of a
 * turn's list requests ask for the same hot first page, and one read answers them all (a
 * StoredPetPage is only read, so they share it). `read` answers one page per distinct query,
 * in their order.
 */
export const readDistinctPages = async (
  queries: readonly PetPageQuery[],
  read: (distinct: readonly PetPageQuery[]) => Promise<readonly StoredPetPage[]>,
): Promise<StoredPetPage[]> => {
  const positions = new Map<string, number>();
  const distinct: PetPageQuery[] = [];
  const asked = queries.map((query) => {
    const page = `${query.status ?? ''} ${query.afterId} ${query.limit}`;
    let position = positions.get(page);
    if (position === undefined) {
      position = distinct.push(query) - 1;
      positions.set(page, position);
    }
    return position;
  });
  const pages = await read(distinct);
  if (pages.length !== distinct.length) throw new Error(`${distinct.length} page reads answered ${pages.length} pages`);
  return asked.map((position) => pages[position] as StoredPetPage);
};
