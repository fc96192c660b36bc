'use strict';

/*
 * Baton dashboard, part 3 of 3: polls the node's HTTP API once a second and renders what it says. Builds on
 * format.js (elements, ids, times) and work.js (the work items and workers), which index.html loads first.
 *
 * - Every piece of data reaches the page through textContent or a checked attribute, never innerHTML: a node id, an
 *   error message or a work item's field cannot inject markup.
 * - Every URL is relative ("cluster/status", not "/cluster/status"), so the page works at / on a node and behind a
 *   reverse proxy that mounts it under a prefix. Nothing is fetched from anywhere else.
 * - Behind a load balancer each poll may be answered by a different node, whose view can lag by a moment; the page
 *   never lets the term it shows go backwards because of that (see observeLeadership).
 */
(function (dashboard) {
  const {$, el, setText, link, badge, idText, shortId, toMillis, serverNow, setClockOffset, ago, duration,
    clockTime, relativeTime, isObject} = dashboard.format;
  const {parseAssignments, parseWorkers, itemsData, renderItems, renderWorkers} = dashboard.work;

  const POLL_MS = 1000;
  const HIDDEN_POLL_MS = 5000;
  const REQUEST_TIMEOUT_MS = 2500;
  const TICK_MS = 200;
  const EVENT_LIMIT = 100;
  const TIMELINE_MAX = 40;
  const OTHER_EVENTS_MAX = 30;
  const OBSERVED_MAX = 40;
  /**
   * After GET /work/state answered 404 (the node runs no work cluster) or 501 (its backend has no shared store), ask
   * again this rarely: a rolling upgrade may add it.
   */
  const WORK_STATE_RECHECK_MS = 15000;
  const STORAGE_KEY = 'baton.dashboard.observed.v1';

  const model = {
    status: null,
    statusAt: 0,
    statusError: null,
    events: [],
    eventsSource: null,
    eventsError: null,
    items: [],
    itemsError: null,
    /** Map of item id -> {worker, status} while GET /work/state answers 200; null while it does not exist. */
    assignments: null,
    /** The work cluster's workers from GET /work/state, or null while it does not exist. */
    workers: null,
    workStateNextCheck: 0,
    /** Leadership changes this page saw itself, newest last; kept for the tab's session. */
    observed: [],
    /** The highest term this page has shown; a lagging node's older view does not lower it. */
    highestTerm: 0,
    /** The leader last shown, {id, term}, or null for "none", or undefined before the first answer. */
    lastLeader: undefined,
    /** The term after which a "no leader" observation was already recorded. */
    leaderlessRecordedAfter: -1,
  };

  const rendered = {};
  let timer = null;
  let inFlight = false;

  /** Re-renders a part only when the data it shows changed, so a steady page does not churn the DOM every second. */
  function renderPart(name, data, render) {
    const key = JSON.stringify(data);
    if (rendered[name] === key) {
      return;
    }
    rendered[name] = key;
    render(data);
  }

  function refreshRelativeTimes() {
    const now = serverNow();
    for (const node of document.querySelectorAll('time.rel')) {
      const text = ago(Number(node.getAttribute('data-at')), now);
      if (node.textContent !== text) {
        node.textContent = text;
      }
    }
    if (model.statusAt) {
      const who = model.status && model.status.node_id ? ' from ' + model.status.node_id : '';
      setText('updated', 'Last answer ' + ago(model.statusAt, Date.now()) + who + '.');
    }
  }

  // ---- fetching ---------------------------------------------------------------------------------------------------

  /** GET a relative path; resolves to {status, body} (body null unless JSON), rejects on network error or timeout. */
  async function getJson(path) {
    const controller = new AbortController();
    const timeout = setTimeout(() => controller.abort(), REQUEST_TIMEOUT_MS);
    try {
      const response = await fetch(path, {
        headers: {Accept: 'application/json'},
        cache: 'no-store',
        credentials: 'same-origin',
        signal: controller.signal,
      });
      const type = response.headers.get('Content-Type') || '';
      let body = null;
      if (type.includes('json')) {
        try {
          body = await response.json();
        } catch (e) {
          body = null;
        }
      } else {
        await response.text();
      }
      return {status: response.status, body: body};
    } catch (e) {
      throw new Error(e && e.name === 'AbortError' ? 'no answer within ' + REQUEST_TIMEOUT_MS / 1000 + ' s'
          : 'network error');
    } finally {
      clearTimeout(timeout);
    }
  }

  function failure(settled) {
    if (settled.status === 'rejected') {
      return settled.reason && settled.reason.message ? settled.reason.message : 'request failed';
    }
    const body = settled.value.body;
    const detail = body && typeof body === 'object' && (body.message || body.error);
    return 'HTTP ' + settled.value.status + (detail ? ' (' + detail + ')' : '');
  }

  async function poll() {
    const now = Date.now();
    const askWorkState = model.assignments !== null || now >= model.workStateNextCheck;
    const [status, events, items, workState] = await Promise.allSettled([
      getJson('cluster/status'),
      getJson('cluster/events?limit=' + EVENT_LIMIT),
      getJson('work/items'),
      askWorkState ? getJson('work/state') : Promise.resolve(null),
    ]);

    if (status.status === 'fulfilled' && status.value.status === 200 && isObject(status.value.body)) {
      model.status = status.value.body;
      model.statusAt = Date.now();
      const serverTime = toMillis(model.status.timestamp);
      // The stamp was taken about half a round trip ago; on a LAN that is noise next to a second of polling.
      setClockOffset(serverTime === null ? 0 : serverTime - model.statusAt);
      model.statusError = null;
      observeLeadership(model.status);
    } else {
      model.statusError = failure(status);
    }

    if (events.status === 'fulfilled' && events.value.status === 200 && isObject(events.value.body)) {
      model.events = Array.isArray(events.value.body.events) ? events.value.body.events.filter(isObject) : [];
      model.eventsSource = events.value.body.source || null;
      model.eventsError = null;
    } else {
      model.eventsError = failure(events);
    }

    if (items.status === 'fulfilled' && items.value.status === 200 && isObject(items.value.body)) {
      model.items = Array.isArray(items.value.body.items) ? items.value.body.items.filter(isObject) : [];
      model.itemsError = null;
    } else {
      model.itemsError = failure(items);
    }

    if (askWorkState && workState.status === 'fulfilled' && workState.value !== null) {
      if (workState.value.status === 200 && workState.value.body !== null) {
        model.assignments = parseAssignments(workState.value.body);
        model.workers = parseWorkers(workState.value.body);
      } else if (workState.value.status === 404 || workState.value.status === 501) {
        model.assignments = null;
        model.workers = null;
        model.workStateNextCheck = Date.now() + WORK_STATE_RECHECK_MS;
      }
      // Any other answer (a node restarting, a proxy error) keeps what was shown last.
    }
  }

  // ---- leadership as this page saw it ------------------------------------------------------------------------------

  function loadObserved() {
    try {
      const saved = JSON.parse(window.sessionStorage.getItem(STORAGE_KEY) || 'null');
      if (saved && Array.isArray(saved.observed)) {
        model.observed = saved.observed.filter(isObject).slice(-OBSERVED_MAX);
        model.highestTerm = Number(saved.highestTerm) || 0;
        model.lastLeader = saved.leaderKnown ? saved.lastLeader : undefined;
        model.leaderlessRecordedAfter = Number(saved.leaderlessRecordedAfter);
        if (Number.isNaN(model.leaderlessRecordedAfter)) {
          model.leaderlessRecordedAfter = -1;
        }
      }
    } catch (e) {
      // Storage disabled or unreadable: start afresh, the page works without it.
    }
  }

  function saveObserved() {
    try {
      window.sessionStorage.setItem(STORAGE_KEY, JSON.stringify({
        observed: model.observed,
        highestTerm: model.highestTerm,
        leaderKnown: model.lastLeader !== undefined,
        lastLeader: model.lastLeader === undefined ? null : model.lastLeader,
        leaderlessRecordedAfter: model.leaderlessRecordedAfter,
      }));
    } catch (e) {
      // Storage full or disabled: the observations only last as long as the page.
    }
  }

  /**
   * Records leadership changes between two answers. Terms only rise, so an answer whose term is below the highest
   * already seen is a lagging node's view and does not count as a change; "no leader" is recorded once per term.
   */
  function observeLeadership(status) {
    const leaderId = status.leader_id === null || status.leader_id === undefined || status.leader_id === ''
        ? null : String(status.leader_id);
    const term = Number(status.term) || 0;
    const first = model.lastLeader === undefined;
    const at = serverNow();
    if (leaderId !== null) {
      if (term < model.highestTerm) {
        return;
      }
      const last = model.lastLeader;
      const changed = !last || last.id !== leaderId || last.term !== term;
      if (changed && !first) {
        model.observed.push({kind: 'elected', node: leaderId, term: term, at: at, by: status.node_id || null});
      }
      model.lastLeader = {id: leaderId, term: term};
      model.highestTerm = Math.max(model.highestTerm, term);
    } else {
      if (!first && model.lastLeader && model.leaderlessRecordedAfter < model.highestTerm) {
        model.observed.push({kind: 'none', node: model.lastLeader.id, term: model.highestTerm, at: at,
          by: status.node_id || null});
        model.leaderlessRecordedAfter = model.highestTerm;
      }
      model.lastLeader = null;
    }
    if (model.observed.length > OBSERVED_MAX) {
      model.observed.splice(0, model.observed.length - OBSERVED_MAX);
    }
    saveObserved();
  }

  // ---- rendering --------------------------------------------------------------------------------------------------

  function render() {
    renderHeader();
    renderLeader();
    renderBanner();
    renderPart('nodes', nodesData(), renderNodes);
    renderPart('timeline', timelineData(), renderTimeline);
    renderPart('events', otherEventsData(), renderOtherEvents);
    renderPart('items', itemsData(model), renderItems);
    renderPart('workers', model.workers, renderWorkers);
    refreshRelativeTimes();
  }

  function renderHeader() {
    const s = model.status;
    if (!s) {
      return;
    }
    setText('group', s.group || '');
    setText('self-id', s.node_id || '?');
    setText('self-state', s.state || '?');
    setText('backend', s.backend || '?');
    setText('uptime', duration(s.uptime_seconds));
    const title = 'Baton · ' + (s.group || 'cluster') + (s.leader_id ? ' · leader ' + s.leader_id : ' · no leader');
    if (document.title !== title) {
      document.title = title;
    }
  }

  function renderLeader() {
    const s = model.status;
    if (!s) {
      return;
    }
    const leader = s.leader_id ? String(s.leader_id) : '';
    setText('leader-id', leader ? shortId(leader) : 'none');
    $('leader-id').setAttribute('data-leader', leader);
    $('leader-id').title = leader;
    setText('leader-term', String(Number(s.term) || 0));
    setText('cluster-size', String(Number(s.cluster_size) || 0));
    setText('cluster-ready', s.cluster_ready ? 'ready: a leader is known and the backend answers' : 'not ready');
    renderPart('leader-url', {url: leader ? s.leader_url || null : null, leader: leader}, (d) => {
      const target = $('leader-url');
      if (d.url) {
        target.replaceChildren('API ', link(d.url, d.url));
      } else {
        target.replaceChildren(d.leader ? 'API address not registered' : 'writes are refused until one is elected');
      }
    });
  }

  function bannerData() {
    const messages = [];
    let level = null;
    const raise = (kind) => {
      level = level === 'bad' || kind === 'bad' ? 'bad' : 'warn';
    };
    if (model.statusError) {
      raise('bad');
      messages.push('Cannot reach the node: ' + model.statusError + '.' + (model.statusAt
          ? ' Showing its last answer.' : ''));
    }
    const s = model.status;
    if (s) {
      if (s.state === 'stopped') {
        raise('bad');
        messages.push('This node has stopped and no longer takes part in the election.');
      }
      if (s.problem) {
        raise('bad');
        messages.push('Degraded: ' + s.problem);
      }
      if (!s.leader_id) {
        raise('bad');
        messages.push('No leader: writes are refused until an election completes.');
      } else if (s.cluster_ready === false && !s.problem) {
        raise('warn');
        messages.push('Cluster not ready.');
      }
      const members = Array.isArray(s.members) ? s.members.filter(isObject) : [];
      const unreachable = members.filter((m) => m.state && m.state !== 'active').map((m) => m.node_id + ' (' + m.state + ')');
      if (unreachable.length) {
        raise('warn');
        messages.push('Not active: ' + unreachable.join(', ') + '.');
      }
    }
    return {level: level, messages: messages};
  }

  function renderBanner() {
    renderPart('banner', bannerData(), (d) => {
      const banner = $('banner');
      if (!d.level) {
        banner.hidden = true;
        banner.className = 'banner';
        banner.replaceChildren();
        return;
      }
      banner.className = 'banner ' + d.level;
      banner.replaceChildren(...d.messages.map((m) => el('p', {}, m)));
      banner.hidden = false;
    });
  }

  function nodesData() {
    const s = model.status;
    if (!s) {
      return null;
    }
    const members = Array.isArray(s.members) ? s.members.filter(isObject) : [];
    return {
      self: s.node_id || null,
      leader: s.leader_id || null,
      members: members.map((m) => ({
        id: m.node_id, name: m.identifier, role: m.role, state: m.state, seen: m.last_seen,
        registered: m.registered_at, api: m.api_url,
      })),
    };
  }

  function renderNodes(d) {
    if (!d) {
      return;
    }
    const rows = d.members.map((m) => {
      const isLeader = m.role === 'leader' || (d.leader && m.id === d.leader);
      const state = m.state || 'unknown';
      const stateKind = state === 'active' ? 'ok' : (state === 'unreachable' || state === 'removed' ? 'bad' : 'warn');
      return el('tr', {className: isLeader ? 'is-leader' : null, 'data-node': m.id},
          el('td', {}, idText(m.id), ' ',
              m.id === d.self ? badge('this node', 'self') : null),
          el('td', {}, m.name || '—'),
          el('td', {}, badge(isLeader ? 'leader' : (m.role || 'follower'), isLeader ? 'leader' : 'follower')),
          el('td', {}, badge(state, stateKind)),
          el('td', {}, relativeTime(m.seen)),
          el('td', {}, relativeTime(m.registered)),
          el('td', {}, m.api ? link(m.api, m.api) : '—'));
    });
    document.querySelector('#nodes tbody').replaceChildren(...rows);
    $('nodes-empty').hidden = rows.length > 0;
  }

  function timelineData() {
    const fromLog = [];
    for (const e of model.events) {
      if (e.type !== 'leader_elected' && e.type !== 'leader_lost') {
        continue;
      }
      const data = isObject(e.data) ? e.data : {};
      fromLog.push({
        kind: e.type === 'leader_elected' ? 'elected' : 'lost',
        node: e.node_id === undefined ? null : String(e.node_id),
        term: Number(data.term) || 0,
        reason: data.reason || null,
        at: toMillis(e.timestamp),
        id: Number(e.id) || 0,
        by: data.observed_by ? String(data.observed_by) : null,
        source: 'log',
      });
    }
    const logged = new Set(fromLog.filter((e) => e.kind === 'elected').map((e) => e.node + '@' + e.term));
    const seen = model.observed
        .filter((o) => !(o.kind === 'elected' && logged.has(o.node + '@' + o.term)))
        .map((o) => ({kind: o.kind, node: o.node, term: o.term, at: o.at, by: o.by, id: 0, source: 'page'}));
    const all = fromLog.concat(seen);
    all.sort((a, b) => (b.at || 0) - (a.at || 0) || b.term - a.term || b.id - a.id);
    return {entries: all.slice(0, TIMELINE_MAX), source: model.eventsSource, error: model.eventsError};
  }

  function renderTimeline(d) {
    setText('events-source', d.error ? 'unavailable: ' + d.error : (d.source || 'node'));
    const items = d.entries.map((e) => {
      let text;
      if (e.kind === 'elected') {
        text = [el('strong', {}, idText(e.node)), ' elected leader, term ' + e.term];
      } else if (e.kind === 'lost') {
        text = [el('strong', {}, idText(e.node)), ' lost leadership of term ' + e.term
            + (e.reason ? ' (' + String(e.reason).toLowerCase() + ')' : '')];
      } else {
        text = ['No leader known after ', el('strong', {}, idText(e.node)), ', term ' + e.term];
      }
      const source = e.source === 'log' ? 'event log' + (e.by ? ', as ' + e.by + ' learned of it' : '')
          : 'seen by this page' + (e.by ? ' via ' + e.by : '');
      return el('li', {className: e.kind},
          el('span', {className: 'when'}, e.at ? clockTime(e.at) : '—', e.at ? relativeTime(e.at) : null),
          el('span', {}, ...text, el('br'), el('span', {className: 'source'}, source)));
    });
    $('timeline').replaceChildren(...items);
    $('timeline-empty').hidden = items.length > 0;
  }

  function otherEventsData() {
    return model.events
        .filter((e) => e.type !== 'leader_elected' && e.type !== 'leader_lost')
        .map((e) => ({id: Number(e.id) || 0, node: e.node_id, type: e.type, data: isObject(e.data) ? e.data : {},
          at: toMillis(e.timestamp)}))
        .sort((a, b) => (b.at || 0) - (a.at || 0) || b.id - a.id)
        .slice(0, OTHER_EVENTS_MAX);
  }

  function describeEvent(e) {
    const d = e.data;
    switch (e.type) {
      case 'node_joined':
        return (d.node_id || e.node) + ' joined' + (d.identifier ? ' (' + d.identifier + ')' : '');
      case 'node_left':
        return (d.node_id || e.node) + ' left';
      case 'node_state_changed':
        return (d.node_id || e.node) + ': ' + (d.from || '?') + ' → ' + (d.to || '?');
      case 'election_started':
        return e.node + ' started an election';
      case 'cluster_degraded':
        return e.node + ' degraded' + (d.reason ? ': ' + d.reason : '');
      case 'cluster_recovered':
        return e.node + ' recovered';
      default:
        return e.node + ' ' + e.type + (Object.keys(d).length ? ' ' + JSON.stringify(d) : '');
    }
  }

  function renderOtherEvents(list) {
    const items = list.map((e) => el('li', {},
        el('span', {className: 'when'}, e.at ? clockTime(e.at) : '—'),
        el('span', {}, describeEvent(e))));
    $('events').replaceChildren(...items);
  }

  // ---- loop -------------------------------------------------------------------------------------------------------

  function schedule(delay) {
    clearTimeout(timer);
    timer = setTimeout(cycle, delay);
  }

  async function cycle() {
    if (inFlight) {
      return;
    }
    inFlight = true;
    try {
      await poll();
      render();
    } catch (e) {
      model.statusError = 'dashboard error: ' + (e && e.message ? e.message : String(e));
      try {
        renderBanner();
      } catch (ignored) {
        // Nothing more to show.
      }
    } finally {
      inFlight = false;
      schedule(document.visibilityState === 'hidden' ? HIDDEN_POLL_MS : POLL_MS);
    }
  }

  function start() {
    loadObserved();
    document.addEventListener('visibilitychange', () => {
      if (document.visibilityState === 'visible') {
        schedule(0);
      }
    });
    setInterval(refreshRelativeTimes, TICK_MS);
    cycle();
  }

  if (document.readyState === 'loading') {
    document.addEventListener('DOMContentLoaded', start);
  } else {
    start();
  }
})(window.BatonDashboard);
