// One place that names the vendored libraries, so pages import from here.
import { h, render, Fragment } from '../third_party/preact.module.js';
import { useState, useEffect, useRef, useMemo, useCallback } from '../third_party/hooks.module.js';
import htm from '../third_party/htm.module.js';

export const html = htm.bind(h);
export { h, render, Fragment, useState, useEffect, useRef, useMemo, useCallback };
