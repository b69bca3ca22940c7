/** What the working tree's snapshot says of one index entry, one byte per entry. */
export const CLEAN = 0;
/** git reports the entry (a change staged against HEAD) but the disk matches the index. */
export const STAGED = 1;
/** The disk differs from the index: modified, deleted, a type change, a conflict, a gitlink, intent-to-add. */
export const DIRTY = 2;
