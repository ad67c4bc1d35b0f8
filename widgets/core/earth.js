/** The Earth's constants the views use, in one module (the server's are `fitting/geo.py`'s). */

/** Metres per degree of longitude on the WGS84 equator, rounded: `fitting.geo.M_PER_DEG_LON_EQUATOR`. */
export const M_PER_DEG_LON_EQUATOR = 111320;
