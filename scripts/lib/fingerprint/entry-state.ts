/** What the index reader says of one index entry, one byte per entry: the disk holds the index's content. */
export const CLEAN = 0;
/** The disk differs from the index: modified, deleted, a type change, a conflict, a gitlink, intent-to-add. */
export const DIRTY = 2;
