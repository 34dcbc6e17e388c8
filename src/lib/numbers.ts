/** A whole number in a sentence, its thousands set apart by thin spaces: 3 508, 100 000. */
export const grouped = (n: number) => n.toLocaleString('en-US').replace(/,/g, '\u2009')
