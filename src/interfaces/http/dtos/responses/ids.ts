/** The forms of the ids the service hands out: a prefix and 128 random bits in hex. */
export const idOf = (prefix: string): RegExp => new RegExp(`^${prefix}_[0-9a-f]{32}$`);

/** A timeline id: `primary` (every account's main timeline) or one the account created. */
export const TIMELINE_ID = /^(primary|tml_[0-9a-f]{32})$/;

export const EXAMPLE_IDS = {
  account: 'acc_0f8fad5bd9cb469fa16570867728950e',
  anchor: 'anc_16fd2706895846d3ab5e0a6d1bc4e0a1',
  apiKey: 'key_5c0b1f9e2d7a4c3b8e6f1a0d9c2b7e45',
  event: 'evt_5d7e2c1b0a9f48e7b6c5d4e3f2a1b0c9',
  item: 'itm_3b241101e2bb42558caf4136c566a962',
  manipulation: 'man_6f1c2d3e4a5b4c6d8e9f0a1b2c3d4e5f',
  timeline: 'tml_7c9e6679742540de944be07fc1f90ae7',
  travel: 'trv_9a1b5f6e8c2d4e7f8a9b0c1d2e3f4a5b',
  webhookEndpoint: 'whk_2c8d4e6f0a1b4c3d9e8f7a6b5c4d3e2f',
  webhookMessage: 'msg_8e1f3a5c7b9d4f6e8a0c2e4b6d8f0a1c',
} as const;
