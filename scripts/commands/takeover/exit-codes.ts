// Takeover's exit statuses, apart from its options: `takeover --help` prints them without loading cmd-ts.
export const EXIT_CODES =
  'Exit status: 0 done, 1 failure (API, runtime, lease lost), 2 usage, profile or receipt error,\n' +
  '3 refused: another checkout holds a lease or a delivery runs.';
