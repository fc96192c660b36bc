'use strict';

/*
 * Baton dashboard, part 2 of 3: the work cluster. Reads GET /work/state into each item's assignment and the list of
 * workers, and renders the work items table and the workers panel. Needs format.js; dashboard.js polls and calls it.
 */
(function (dashboard) {
  const {$, el, setText, badge, idText, relativeTime, isObject, firstDefined} = dashboard.format;

  /**
   * Reads GET /work/state leniently: a list under "assignments" (or "items", or the body itself) of objects naming
   * the item ("item_id" or "id") and its worker ("worker_id", "worker", "node_id" or "assigned_to") with a
   * "status"/"state"; or an object mapping item id -> worker id or -> such an object.
   */
  function parseAssignments(body) {
    const result = new Map();
    const source = Array.isArray(body) ? body : (body.assignments !== undefined ? body.assignments : body.items);
    const put = (id, entry) => {
      if (id === null || id === undefined) {
        return;
      }
      if (typeof entry === 'string') {
        result.set(String(id), {worker: entry, status: 'assigned'});
      } else if (isObject(entry)) {
        const worker = firstDefined(entry.worker_id, entry.worker, entry.node_id, entry.assigned_to);
        const status = firstDefined(entry.status, entry.state);
        result.set(String(id), {
          worker: worker === null ? null : String(worker),
          status: status === null ? (worker === null ? 'unassigned' : 'assigned') : String(status),
        });
      }
    };
    if (Array.isArray(source)) {
      for (const entry of source) {
        if (isObject(entry)) {
          put(firstDefined(entry.item_id, entry.id, entry.item), entry);
        }
      }
    } else if (isObject(source)) {
      for (const [id, entry] of Object.entries(source)) {
        put(id, entry);
      }
    }
    return result;
  }

  /** The "workers" list of GET /work/state: url, online, status, load, items and last report of each. */
  function parseWorkers(body) {
    if (!isObject(body) || !Array.isArray(body.workers)) {
      return [];
    }
    return body.workers.filter(isObject).map((w) => ({
      url: w.url === undefined || w.url === null ? '?' : String(w.url),
      online: w.online === true,
      status: w.status === undefined || w.status === null ? null : String(w.status),
      load: Number(w.subscription_count) || 0,
      cpu: typeof w.cpu_usage === 'number' ? w.cpu_usage : null,
      items: Array.isArray(w.subscriptions) ? w.subscriptions.map(String).sort() : [],
      lastReport: w.last_heartbeat || null,
    })).sort((a, b) => (a.url < b.url ? -1 : a.url > b.url ? 1 : 0));
  }

  /**
   * The items table's data: the desired items sorted by id, each with its assignment while GET /work/state
   * answers (model.assignments not null), from the dashboard's model {items, assignments, itemsError}.
   */
  function itemsData(model) {
    const withAssignment = model.assignments !== null;
    const items = model.items.map((entry) => {
      const item = isObject(entry.item) ? entry.item : {};
      const id = entry.id === undefined ? '?' : String(entry.id);
      const assignment = withAssignment ? (model.assignments.get(id) || {worker: null, status: 'unassigned'}) : null;
      return {
        id: id,
        stream: item.rtspUrl || null,
        model: firstDefined(item.modelName, item.modelId),
        modelId: item.modelId || null,
        weight: item.weight === undefined || item.weight === null ? null : item.weight,
        term: entry.term === undefined ? null : entry.term,
        by: entry.written_by || null,
        worker: assignment ? assignment.worker : null,
        status: assignment ? assignment.status : null,
      };
    });
    items.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    return {items: items, withAssignment: withAssignment, error: model.itemsError};
  }

  function renderItems(d) {
    $('items').classList.toggle('no-assignment', !d.withAssignment);
    setText('items-note', d.error ? 'Work items unavailable: ' + d.error
        : 'Desired items, written by the leader under its term.'
          + (d.withAssignment ? ' Assignment from the work-assignment state.' : ''));
    const rows = d.items.map((i) => el('tr', {'data-item': i.id},
        el('td', {}, idText(i.id)),
        el('td', {}, i.stream ? idText(i.stream) : '—'),
        el('td', {title: i.modelId && i.modelId !== i.model ? i.modelId : null}, i.model || '—'),
        el('td', {className: 'num'}, i.weight === null ? '—' : i.weight),
        el('td', {className: 'num'}, i.term === null ? '—' : i.term),
        el('td', {}, i.by ? idText(i.by) : '—'),
        el('td', {className: 'assignment'}, i.worker ? idText(i.worker) : '—'),
        el('td', {className: 'assignment'}, i.status ? badge(i.status, statusKind(i.status)) : '—')));
    document.querySelector('#items tbody').replaceChildren(...rows);
    $('items-empty').hidden = rows.length > 0 || Boolean(d.error);
  }

  function renderWorkers(workers) {
    $('workers-section').hidden = workers === null;
    if (workers === null) {
      return;
    }
    const online = workers.filter((w) => w.online).length;
    setText('workers-note', online + ' of ' + workers.length + ' online, as the leader last reported them.'
        + ' Load is the number of items a worker runs.');
    const rows = workers.map((w) => el('tr', {'data-worker': w.url, className: w.online ? null : 'offline'},
        el('td', {}, idText(w.url)),
        el('td', {}, badge(w.online ? 'online' : 'offline', w.online ? 'ok' : 'bad'),
            w.status && w.status !== 'online' && w.status !== 'offline' ? ' ' + w.status : null),
        el('td', {className: 'num'}, String(w.load),
            w.cpu === null ? null : el('span', {className: 'muted small'}, ' · cpu ' + Math.round(w.cpu) + '%')),
        el('td', {className: 'worker-items'}, w.items.length ? el('ul', {className: 'chips'},
            ...w.items.map((item) => el('li', {className: 'mono', title: item}, item))) : '—'),
        el('td', {}, relativeTime(w.lastReport))));
    document.querySelector('#workers tbody').replaceChildren(...rows);
    $('workers-empty').hidden = rows.length > 0;
  }

  function statusKind(status) {
    const s = String(status).toLowerCase();
    if (s === 'running' || s === 'assigned' || s === 'active') {
      return 'ok';
    }
    if (s === 'unassigned' || s === 'failed' || s === 'error') {
      return 'bad';
    }
    return 'warn';
  }

  dashboard.work = Object.freeze({parseAssignments, parseWorkers, itemsData, renderItems, renderWorkers});
})(window.BatonDashboard);
