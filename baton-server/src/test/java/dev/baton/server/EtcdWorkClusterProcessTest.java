package dev.baton.server;

/**
 * {@link WorkClusterProcessTest} on a private three-member etcd cluster: the work items live in the etcd store's
 * fenced maps and the workers' results reach their nodes over its message bus.
 */
class EtcdWorkClusterProcessTest extends WorkClusterProcessTest {

    @Override
    TestBackend startBackend() {
        return EtcdTestBackend.start();
    }
}
