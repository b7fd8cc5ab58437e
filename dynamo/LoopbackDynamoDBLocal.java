// DynamoDB Local bound to 127.0.0.1: it has no bind-address option and listens on every
// interface, so this starts its own server object with the loopback host set first.
// Reflection only, so it compiles against the JDK alone (dynamo/local.py compiles it once).
import java.lang.reflect.Field;

public class LoopbackDynamoDBLocal {
    public static void main(String[] args) throws Exception {
        Class<?> runner = Class.forName("software.amazon.dynamodb.services.local.main.ServerRunner");
        Object proxy = runner.getMethod("createServerFromCommandLineArgs", String[].class)
            .invoke(null, (Object) args);
        Field field = proxy.getClass().getDeclaredField("server");
        field.setAccessible(true);
        Object server = field.get(proxy);
        Object[] connectors = (Object[]) server.getClass().getMethod("getConnectors").invoke(server);
        if (connectors.length == 0) {
            throw new IllegalStateException("DynamoDB Local has no connector to bind");
        }
        for (Object connector : connectors) {
            connector.getClass().getMethod("setHost", String.class).invoke(connector, "127.0.0.1");
        }
        proxy.getClass().getMethod("start").invoke(proxy);
    }
}
