'use strict';

/*
 * Baton dashboard, part 1 of 3 (format.js, work.js, dashboard.js; index.html loads them in that order): building
 * elements, showing ids so they wrap only after their separators, and times, durations and the server's clock.
 *
 * Plain scripts without a bundler: each part adds its functions to the one global, window.BatonDashboard, and
 * reads the parts before it from there. Everything here builds nodes with textContent or checked attributes, never
 * innerHTML: a node id, an error message or a work item's field cannot inject markup.
 */
window.BatonDashboard = window.BatonDashboard || {};
(function (dashboard) {
  const $ = (id) => document.getElementById(id);

  /** Server clock minus this browser's clock (ms), from the status answer's timestamp: last-seen uses the store's. */
  let clockOffset = 0;

  // ---- small DOM helpers ------------------------------------------------------------------------------------------

  /** Creates an element; string children become text nodes, null/undefined/false children are skipped. */
  function el(tag, attributes, ...children) {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(attributes || {})) {
      if (value === null || value === undefined || value === false) {
        continue;
      }
      if (name === 'className') {
        node.className = value;
      } else {
        node.setAttribute(name, String(value));
      }
    }
    for (const child of children) {
      if (child === null || child === undefined || child === false) {
        continue;
      }
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return node;
  }

  function setText(id, value) {
    const node = $(id);
    const text = value === null || value === undefined ? '' : String(value);
    if (node.textContent !== text) {
      node.textContent = text;
    }
  }

  /** An http(s) URL as an absolute string, or null for anything else (javascript:, data:, garbage). */
  function safeHttpUrl(value) {
    if (typeof value !== 'string' || value === '') {
      return null;
    }
    try {
      const url = new URL(value, document.baseURI);
      return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : null;
    } catch (e) {
      return null;
    }
  }

  function link(url, text) {
    const href = safeHttpUrl(url);
    if (!href) {
      return text ? document.createTextNode(String(text)) : document.createTextNode('—');
    }
    return el('a', {href: href, rel: 'noopener noreferrer'}, text || url);
  }

  function badge(text, kind) {
    return el('span', {className: 'badge ' + kind}, text);
  }

  /**
   * An id (node, item, worker URL) in monospace that wraps only after its separators (; , / - _ @), never inside a
   * word: "display-1;camera-7" may break after the ";" or a "-", "camera" stays whole; a host and port
   * ("127.0.0.1:9001") stays whole too. The full id is its title.
   */
  function idText(value) {
    const text = value === null || value === undefined ? '?' : String(value);
    const span = el('span', {className: 'mono id', title: text});
    for (const part of text.split(/(?<=[;,/\-_@])/)) {
      span.append(document.createTextNode(part), el('wbr', {}));
    }
    return span;
  }

  /** A long id shortened to its start and end ("3f2a9c1e…9b7d41"); short ids unchanged. */
  function shortId(text) {
    return text.length > 24 ? text.slice(0, 8) + '…' + text.slice(-6) : text;
  }

  // ---- time -------------------------------------------------------------------------------------------------------

  /** Epoch milliseconds from an ISO-8601 string, epoch seconds (the seed's time.time()) or epoch milliseconds. */
  function toMillis(value) {
    if (value === null || value === undefined || value === '') {
      return null;
    }
    if (typeof value === 'number') {
      return value > 1e11 ? value : value * 1000;
    }
    if (typeof value === 'string' && /^\d+(\.\d+)?$/.test(value)) {
      return toMillis(Number(value));
    }
    const ms = Date.parse(value);
    return Number.isNaN(ms) ? null : ms;
  }

  /** The server's time now, as far as this page can tell (its clock corrected by the last status answer). */
  /** The server's time now, as far as this page can tell (its clock corrected by the last status answer). */
  function serverNow() {
    return Date.now() + clockOffset;
  }

  /** Sets the server clock minus this browser's clock (ms), as the last status answer showed it. */
  function setClockOffset(ms) {
    clockOffset = ms;
  }

  /** "0.8 s ago", "42 s ago", "3 min ago" (stamps a little in the future count as now). */
  function ago(ms, now) {
    const seconds = Math.max(0, now - ms) / 1000;
    if (seconds < 10) {
      return seconds.toFixed(1) + ' s ago';
    }
    if (seconds < 90) {
      return Math.round(seconds) + ' s ago';
    }
    if (seconds < 90 * 60) {
      return Math.round(seconds / 60) + ' min ago';
    }
    if (seconds < 48 * 3600) {
      return Math.round(seconds / 3600) + ' h ago';
    }
    return Math.round(seconds / 86400) + ' d ago';
  }

  function duration(seconds) {
    const s = Math.max(0, Math.floor(Number(seconds) || 0));
    if (s < 60) {
      return s + ' s';
    }
    if (s < 3600) {
      return Math.floor(s / 60) + ' min ' + (s % 60) + ' s';
    }
    if (s < 86400) {
      return Math.floor(s / 3600) + ' h ' + Math.floor((s % 3600) / 60) + ' min';
    }
    return Math.floor(s / 86400) + ' d ' + Math.floor((s % 86400) / 3600) + ' h';
  }

  function clockTime(ms) {
    const d = new Date(ms);
    const pad = (n, w) => String(n).padStart(w || 2, '0');
    return pad(d.getHours()) + ':' + pad(d.getMinutes()) + ':' + pad(d.getSeconds()) + '.' + pad(d.getMilliseconds(), 3);
  }

  /** A <time> whose text the ticker keeps current ("0.8 s ago"); its title is the absolute local time. */
  function relativeTime(value) {
    const ms = toMillis(value);
    if (ms === null) {
      return document.createTextNode('—');
    }
    const iso = new Date(ms).toISOString();
    return el('time', {className: 'rel', datetime: iso, title: new Date(ms).toLocaleString(), 'data-at': ms},
        ago(ms, serverNow()));
  }

  // ---- values from the API -----------------------------------------------------------------------------------------

  function isObject(value) {
    return value !== null && typeof value === 'object' && !Array.isArray(value);
  }

  function firstDefined(...values) {
    for (const value of values) {
      if (value !== null && value !== undefined && value !== '') {
        return value;
      }
    }
    return null;
  }

  dashboard.format = Object.freeze({
    $, el, setText, safeHttpUrl, link, badge, idText, shortId,
    toMillis, serverNow, setClockOffset, ago, duration, clockTime, relativeTime,
    isObject, firstDefined,
  });
})(window.BatonDashboard);
